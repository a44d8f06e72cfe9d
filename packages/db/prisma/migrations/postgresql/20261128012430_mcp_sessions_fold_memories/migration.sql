-- CreateTable
CREATE TABLE "mcp_sessions" (
    "key" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "created_at" BIGINT NOT NULL,
    "last_used_at" BIGINT NOT NULL,

    CONSTRAINT "mcp_sessions_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "fold_memories" (
    "workspace" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "content_key" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,

    CONSTRAINT "fold_memories_pkey" PRIMARY KEY ("workspace","id")
);

-- CreateIndex
CREATE INDEX "mcp_sessions_person_id_last_used_at_idx" ON "mcp_sessions"("person_id", "last_used_at");

-- CreateIndex
CREATE INDEX "mcp_sessions_last_used_at_idx" ON "mcp_sessions"("last_used_at");

-- CreateIndex
CREATE INDEX "fold_memories_workspace_created_at_idx" ON "fold_memories"("workspace", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "fold_memories_workspace_content_key_key" ON "fold_memories"("workspace", "content_key");
