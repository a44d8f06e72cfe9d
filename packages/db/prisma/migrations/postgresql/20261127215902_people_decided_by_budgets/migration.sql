-- AlterTable
ALTER TABLE "tool_approvals" ADD COLUMN     "decided_by" TEXT;

-- CreateTable
CREATE TABLE "person_budgets" (
    "person_id" TEXT NOT NULL,
    "monthly_tokens" BIGINT,
    "updated_at" TEXT NOT NULL,

    CONSTRAINT "person_budgets_pkey" PRIMARY KEY ("person_id")
);

-- CreateTable
CREATE TABLE "person_token_usage" (
    "person_id" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "used_tokens" BIGINT NOT NULL,

    CONSTRAINT "person_token_usage_pkey" PRIMARY KEY ("person_id","month")
);
