import type { FoldView } from "../../protocol/http-responses.js";
import { parseStoredEvent } from "./stored-events.js";
import type { StoredSession } from "./stored-session.js";

// The folds of a session (context folding, issue #13), as GET /api/sessions/{id}/folds lists them
// and the fold card shows them: each fold's start, warning and return from the stored events, and
// its steps (the rows stored with its `meta.fold_id`, on no branch), in order.

export type { FoldView };

export async function listFolds(core: StoredSession): Promise<FoldView[]> {
  const rows = await core.deps.store.readEvents(core.id, 0);
  const folds = new Map<string, FoldView>();
  for (const row of rows) {
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
  for (const message of core.pool.values()) {
    const foldId = message.meta?.fold_id;
    if (foldId !== undefined) folds.get(foldId)?.steps.push(message);
  }
  return [...folds.values()];
}
