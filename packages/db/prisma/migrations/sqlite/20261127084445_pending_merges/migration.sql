-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_sessions" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "title" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "state_type" TEXT NOT NULL,
    "active_branch_id" TEXT NOT NULL,
    "created_at" TEXT NOT NULL,
    "updated_at" TEXT NOT NULL,
    "touched" BIGINT NOT NULL,
    "last_message_position" INTEGER NOT NULL DEFAULT 0,
    "last_event_sequence" INTEGER NOT NULL DEFAULT 0,
    "pending_merges" TEXT NOT NULL DEFAULT '[]'
);
INSERT INTO "new_sessions" ("active_branch_id", "config", "created_at", "id", "last_event_sequence", "last_message_position", "state", "state_type", "title", "touched", "updated_at") SELECT "active_branch_id", "config", "created_at", "id", "last_event_sequence", "last_message_position", "state", "state_type", "title", "touched", "updated_at" FROM "sessions";
DROP TABLE "sessions";
ALTER TABLE "new_sessions" RENAME TO "sessions";
CREATE INDEX "sessions_updated_at_touched_idx" ON "sessions"("updated_at", "touched");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
