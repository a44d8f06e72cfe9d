import { combineUsage, emptyUsage, type Usage } from "../model/llm-messages.js";
import type { LoopRecord, SessionLoopTree } from "../model/loop-records.js";

// Navigation over a session's loop tree (REQ-218) and the sum of its usage (REQ-211). Free
// functions over plain records rather than methods, so they work the same on a record the
// recorder holds, one parsed back from storage, and one received by a browser.

/** REQ-211: the sum of every loop's usage. */
export function totalUsage(session: SessionLoopTree): Usage {
  return session.loops.reduce((sum, loop) => combineUsage(sum, loop.usage), emptyUsage());
}

export function getLoop(session: SessionLoopTree, loopId: string): LoopRecord | undefined {
  return session.loops.find((loop) => loop.loopId === loopId);
}

/**
 * Loops with no parent in this session: origin runs, and a sub-agent session's first loop (its
 * parent lives in the spawning session). In start order. A loop stored as its own parent (older
 * records, before loop numbers came from the store) counts as a root, so it is never lost.
 */
export function rootLoops(session: SessionLoopTree): LoopRecord[] {
  const ids = new Set(session.loops.map((loop) => loop.loopId));
  return session.loops.filter(
    (loop) =>
      loop.parentLoopId === undefined ||
      loop.parentLoopId === loop.loopId ||
      !ids.has(loop.parentLoopId),
  );
}

/**
 * The loops of this session whose parent is `loopId`, in start order. Children that live in
 * other sessions (sub-agents) are not here: follow the parent's `childLoopRefs` to load them.
 */
export function childrenOf(session: SessionLoopTree, loopId: string): LoopRecord[] {
  return session.loops.filter((loop) => loop.parentLoopId === loopId && loop.loopId !== loopId);
}

/** The other branches of the parallel group `loopId` belongs to; empty when it has none. */
export function parallelSiblings(session: SessionLoopTree, loopId: string): LoopRecord[] {
  const groupId = getLoop(session, loopId)?.parallelGroup?.groupId;
  if (groupId === undefined) return [];
  return session.loops.filter(
    (loop) => loop.loopId !== loopId && loop.parallelGroup?.groupId === groupId,
  );
}

/**
 * Rebuilds sessions from loop records saved one by one (what a LoopRecordSink receives).
 * Loops are ordered by start time (ties keep input order); a session's agentId and
 * parentSpawnRef come from its first loop that has them. Sessions come out in order of their
 * first loop's start.
 */
export function loopTreesFromRecords(records: Iterable<LoopRecord>): SessionLoopTree[] {
  const bySession = new Map<string, LoopRecord[]>();
  for (const record of records) {
    const loops = bySession.get(record.sessionId);
    if (loops) loops.push(record);
    else bySession.set(record.sessionId, [record]);
  }
  const sessions: SessionLoopTree[] = [];
  for (const [sessionId, loops] of bySession) {
    // Array.prototype.sort is stable, so equal start times keep their input order.
    loops.sort((a, b) => a.startedAt - b.startedAt);
    const first = loops[0];
    if (!first) continue;
    const session: SessionLoopTree = { sessionId, agentId: first.agentId, loops };
    const spawnRef = loops.find((loop) => loop.spawnRef !== undefined)?.spawnRef;
    if (spawnRef) session.parentSpawnRef = spawnRef;
    sessions.push(session);
  }
  return sessions.sort((a, b) => (a.loops[0]?.startedAt ?? 0) - (b.loops[0]?.startedAt ?? 0));
}
