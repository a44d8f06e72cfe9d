import { estimateTextTokens } from "../../agent/token-count.js";
import { foldExtractiveSummary } from "../../folding/fold-runtime.js";
import { forcedReturnHeader } from "../../folding/ledger.js";
import { scrubSecrets } from "../../folding/scrub.js";
import type { FoldReturned, FoldStarted } from "../../protocol/events.js";
import type { StoredSession } from "./stored-session.js";
import { toAgentMessages } from "./to-agent-messages.js";

// The forced return of folds a crash (or a restart) cut off: recovery (recovery.ts) ends them at
// once; a fold whose call waited for a person ends once that call is decided (held-child-calls.ts).

/**
 * Folds a crash cut off (started, never returned): each is marked forced (`crash`), with a
 * partial result extracted from its stored steps (scrubbed, as every return is). Its tokens used
 * are what its steps' reported usage adds up to, or the last warning's count.
 */
export async function forcedFolds(
  core: StoredSession,
  open: Array<FoldStarted & { used: number }>,
): Promise<
  Array<{ callId: string | undefined; event: { name: "fold_returned"; payload: FoldReturned } }>
> {
  const ends = [];
  for (const fold of open) {
    const steps = [...core.pool.values()].filter((m) => m.meta?.fold_id === fold.fold_id);
    const reported = steps.reduce(
      (sum, m) => sum + (m.meta?.usage ? m.meta.usage.input + m.meta.usage.output : 0),
      0,
    );
    const used = Math.max(fold.used, reported);
    const partial = foldExtractiveSummary(toAgentMessages(steps), estimateTextTokens);
    const message = await scrubSecrets(
      `${forcedReturnHeader("crash", used, fold.budget)} Partial result:\n${partial}`,
    );
    ends.push({
      callId: fold.parent_fold_id === null ? fold.tool_call_id : undefined,
      event: {
        name: "fold_returned" as const,
        payload: {
          context_id: core.id,
          fold_id: fold.fold_id,
          forced: true,
          reason: "crash" as const,
          tokens_used: used,
          budget: fold.budget,
          message,
        },
      },
    });
  }
  return ends;
}
