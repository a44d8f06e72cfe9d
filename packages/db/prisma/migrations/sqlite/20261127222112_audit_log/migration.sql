-- CreateTable
CREATE TABLE "audit_log" (
    "sequence" BIGINT NOT NULL PRIMARY KEY,
    "time" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor_name" TEXT,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "address" TEXT,
    "detail" TEXT NOT NULL,
    "prev_hash" TEXT NOT NULL,
    "hash" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "audit_log_actor_id_sequence_idx" ON "audit_log"("actor_id", "sequence");

-- CreateIndex
CREATE INDEX "audit_log_action_sequence_idx" ON "audit_log"("action", "sequence");

-- CreateIndex
CREATE INDEX "audit_log_time_idx" ON "audit_log"("time");
