-- CreateTable
CREATE TABLE "app_mcp_servers" (
    "name" TEXT NOT NULL,
    "definition" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "added_by_id" TEXT,
    "added_by_name" TEXT,
    "added_at" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL,
    "version" INTEGER NOT NULL,

    CONSTRAINT "app_mcp_servers_pkey" PRIMARY KEY ("name")
);
