-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "usage_cost_usd" DOUBLE PRECISION;
