-- CreateTable
CREATE TABLE "disabled_extensions" (
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "by_id" TEXT NOT NULL,
    "by_name" TEXT NOT NULL,
    "disabled_at" BIGINT NOT NULL,

    PRIMARY KEY ("kind", "name")
);
