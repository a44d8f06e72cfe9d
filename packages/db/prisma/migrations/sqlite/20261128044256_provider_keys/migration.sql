-- CreateTable
CREATE TABLE "provider_keys" (
    "provider" TEXT NOT NULL PRIMARY KEY,
    "sealed" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "set_by_id" TEXT NOT NULL,
    "set_by_name" TEXT NOT NULL,
    "set_at" BIGINT NOT NULL
);
