-- AlterTable
ALTER TABLE "tool_approvals" ADD COLUMN "decided_by" TEXT;

-- CreateTable
CREATE TABLE "person_budgets" (
    "person_id" TEXT NOT NULL PRIMARY KEY,
    "monthly_tokens" BIGINT,
    "updated_at" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "person_token_usage" (
    "person_id" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "used_tokens" BIGINT NOT NULL,

    PRIMARY KEY ("person_id", "month")
);
