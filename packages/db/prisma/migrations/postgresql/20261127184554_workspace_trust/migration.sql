-- CreateTable
CREATE TABLE "workspace_trust" (
    "workspace" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "trusted_by" TEXT NOT NULL,
    "trusted_at" TEXT NOT NULL,

    CONSTRAINT "workspace_trust_pkey" PRIMARY KEY ("workspace","file","name")
);
