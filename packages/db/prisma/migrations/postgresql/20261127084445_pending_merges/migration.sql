-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "pending_merges" TEXT NOT NULL DEFAULT '[]';
