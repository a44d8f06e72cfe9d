import type { FoldView } from "../../protocol/http-responses.js";
import { parseStoredEvent } from "./stored-events.js";
import type { StoredSession } from "./stored-session.js";

// The folds of a session (context folding, issue #13), as GET /api/sessions/{id}/folds lists them
// and the fold card shows them: each fold's start, warning and return from the stored events, and
// its steps (the rows stored with its `meta.fold_id`, on no branch), in order.

export type { FoldView };

/** The folds read so far from a session's events, and the sequence read up to (per session). */
const cache = new WeakMap<StoredSession, { after: number; folds: Map<string, FoldView> }>();

/**
 * The session's folds. The events are read once and then only the new ones (the chat asks at
 * every message change): a session's stored events never change, they only grow.
 */
export async function listFolds(core: StoredSession): Promise<FoldView[]> {
  const known = cache.get(core) ?? { after: 0, folds: new Map<string, FoldView>() };
  const rows = await core.deps.store.readEvents(core.id, known.after);
  const folds = known.folds;
  for (const row of rows) {
    known.after = Math.max(known.after, row.sequence);
    const event = parseStoredEvent(row);
    if (event?.name === "fold_started") {
      const p = event.payload;
      folds.set(p.fold_id, {
        fold_id: p.fold_id,
        parent_fold_id: p.parent_fold_id,
        depth: p.depth,
        description: p.description,
        budget: p.budget,
        timeout_seconds: p.timeout_seconds,
        loop_id: p.loop_id,
        tool_call_id: p.tool_call_id ?? null,
        injected_memory_ids: p.injected_memory_ids,
        status: "running",
        reason: null,
        tokens_used: 0,
        warned: false,
        message: null,
        steps: [],
      });
    } else if (event?.name === "fold_budget_warning") {
      const fold = folds.get(event.payload.fold_id);
      if (fold) {
        fold.warned = true;
        fold.tokens_used = event.payload.tokens_used;
      }
    } else if (event?.name === "fold_returned") {
      const fold = folds.get(event.payload.fold_id);
      if (fold) {
        fold.status = event.payload.forced ? "forced" : "returned";
        fold.reason = event.payload.reason;
        fold.tokens_used = event.payload.tokens_used;
        fold.message = event.payload.message;
      }
    }
  }
  cache.set(core, known);
  if (folds.size === 0) return [];
  const steps = new Map<string, FoldView["steps"]>();
  for (const message of core.pool.values()) {
    const foldId = message.meta?.fold_id;
    if (foldId === undefined || !folds.has(foldId)) continue;
    const list = steps.get(foldId) ?? [];
    list.push(message);
    steps.set(foldId, list);
  }
  return [...folds.values()].map((fold) => ({ ...fold, steps: steps.get(fold.fold_id) ?? [] }));
}
