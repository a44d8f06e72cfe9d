import { z } from "zod";
import { estimateTextTokens } from "../agent/token-count.js";
import {
  budgetWarningText,
  FOLD_MEMORY_SHARE,
  type FoldEntry,
  type FoldForcedReason,
  FoldLedger,
  type FoldLedgerOptions,
  FoldLedgerSnapshotSchema,
  forcedReturnHeader,
} from "./ledger.js";
import type { FoldMemorySource } from "./memory.js";
import type { McpBranchParams, McpReturnParams } from "./params.js";
import { scrubSecrets } from "./scrub.js";

// Folding for an agent that runs elsewhere (Claude Code over MCP): the agent works each fold
// itself, so Arbor cannot read its model usage; what Arbor meters is the traffic it serves, the
// output of its own tools while a fold is active (the spec's "other MCP tools respect
// active_branch_id"). One FoldSession per MCP session: a ledger, the chain of folds the agent is
// in (the last is the active one), and no timers: timeouts are read from the ledger at each call.
//
// A fold forced to return (budget spent, timeout) stays the active one until the agent calls
// `return`: Arbor's tools refuse to run in it meanwhile, so a spent budget is a limit, not a
// remark. The return then says it was forced, and why.

/**
 * A fold session as data (JSON-safe): the ledger and the chain of folds the agent is in. An MCP
 * session's folds are kept like this between requests (mcp-http.ts), so any instance serves it.
 */
export const FoldSessionSnapshotSchema = z.object({
  ledger: FoldLedgerSnapshotSchema,
  chain: z.array(z.string()),
});
export type FoldSessionSnapshot = z.infer<typeof FoldSessionSnapshotSchema>;

export interface FoldSessionOptions extends Omit<FoldLedgerOptions, "restore"> {
  /** continue an earlier session (its `snapshot()`) */
  restore?: FoldSessionSnapshot;
  memories?: FoldMemorySource;
  /** default: scrubSecrets */
  scrub?: (text: string) => string | Promise<string>;
  countTokens?: (text: string) => number;
}

export type FoldCallResult<T> = { ok: true; value: T } | { ok: false; message: string };

export interface BranchAnswer {
  fold_id: string;
  parent_fold_id: string | null;
  depth: number;
  budget: number;
  timeout_seconds: number;
  /** lessons of earlier folds with a similar description, counted against the budget */
  memories: Array<{ id: string; text: string }>;
  tokens_used: number;
}

export interface ReturnAnswer {
  fold_id: string;
  forced: boolean;
  reason: FoldForcedReason | null;
  tokens_used: number;
  budget: number;
  /** the scrubbed message: what the parent keeps of the fold */
  message: string;
  /** folds inside it that were still open, forced with `parent_returned` */
  forced_children: string[];
  /** where the agent is now */
  active_fold_id: string | null;
}

export interface FoldStatusAnswer {
  active_fold_id: string | null;
  folds: Array<{
    fold_id: string;
    parent_fold_id: string | null;
    depth: number;
    description: string;
    status: "open" | "returned" | "forced";
    reason: FoldForcedReason | null;
    tokens_used: number;
    budget: number;
    tokens_left: number;
    /** open folds: seconds until the timeout forces it */
    seconds_left: number | null;
  }>;
}

/** What metering a tool's output did to the active fold. */
export interface MeterNotice {
  /** the fold it was counted against, if any */
  foldId: string | null;
  tokens: number;
  /** a line for the agent (the 80% warning, the forced return), or null */
  notice: string | null;
}

export class FoldSession {
  readonly ledger: FoldLedger;
  readonly #chain: string[] = [];
  readonly #memories: FoldMemorySource | undefined;
  readonly #scrub: (text: string) => string | Promise<string>;
  readonly #count: (text: string) => number;
  readonly #now: () => number;

  constructor(options: FoldSessionOptions = {}) {
    const { restore, ...rest } = options;
    this.ledger = new FoldLedger({
      ...rest,
      ...(restore !== undefined ? { restore: restore.ledger } : {}),
    });
    if (restore !== undefined) this.#chain.push(...restore.chain);
    this.#memories = options.memories;
    this.#scrub = options.scrub ?? scrubSecrets;
    this.#count = options.countTokens ?? estimateTextTokens;
    this.#now = options.now ?? Date.now;
  }

  /** The session as data: `new FoldSession({ restore })` continues from it. */
  snapshot(): FoldSessionSnapshot {
    return { ledger: this.ledger.snapshot(), chain: [...this.#chain] };
  }

  /** The fold the agent is in (active_branch_id), or null at the top level. */
  get activeFoldId(): string | null {
    this.#expire();
    return this.#chain.at(-1) ?? null;
  }

  async branch(params: z.output<typeof McpBranchParams>): Promise<FoldCallResult<BranchAnswer>> {
    this.#expire();
    const parent = this.#active();
    if (parent !== undefined && parent.status !== "open")
      return refused(`${this.#forcedLine(parent)}: call return before opening another fold`);
    const opened = this.ledger.open({
      description: params.description,
      ...(params.budget !== undefined ? { budget: params.budget } : {}),
      ...(params.timeout_seconds !== undefined ? { timeoutSeconds: params.timeout_seconds } : {}),
      ...(parent !== undefined ? { parentId: parent.id } : {}),
    });
    if (!opened.ok) return refused(opened.refusal.message);
    const fold = opened.fold;
    this.#chain.push(fold.id);
    let memories: Array<{ id: string; text: string }> = [];
    if (this.#memories !== undefined) {
      try {
        const limit = Math.floor(FOLD_MEMORY_SHARE * fold.budget);
        memories = (await this.#memories.recall(params.description, limit)).map((m) => ({
          id: m.id,
          text: m.text,
        }));
      } catch {
        // a memory store that fails leaves the fold without lessons, not without a start
      }
    }
    // the lessons enter the agent's context inside the fold: they count like tool output
    const used = this.ledger.meter(fold.id, this.#count(memories.map((m) => m.text).join("\n")));
    return {
      ok: true,
      value: {
        fold_id: fold.id,
        parent_fold_id: fold.parentId,
        depth: fold.depth,
        budget: fold.budget,
        timeout_seconds: fold.timeoutSeconds,
        memories,
        tokens_used: used.used,
      },
    };
  }

  async return(params: z.output<typeof McpReturnParams>): Promise<FoldCallResult<ReturnAnswer>> {
    this.#expire();
    const id = params.fold_id ?? this.#chain.at(-1);
    if (id === undefined) return refused("no fold is open: call branch first");
    const at = this.#chain.indexOf(id);
    if (at === -1) {
      const known = this.ledger.get(id);
      return refused(
        known === undefined ? `no fold ${id} in this session` : `fold ${id} has already returned`,
      );
    }
    // folds inside it that are still open go first, forced
    const inner = this.#chain.splice(at + 1).reverse();
    for (const child of inner) this.ledger.close(child, "parent_returned");
    this.#chain.pop();
    const closed = this.ledger.close(id);
    const fold = this.ledger.get(id) as FoldEntry;
    const forced = closed === null;
    let message = params.message;
    if (forced && fold.reason !== null)
      message = `${forcedReturnHeader(fold.reason, fold.used, fold.budget)} ${message}`;
    const scrubbed = await this.#scrub(message);
    if (params.remember === true && this.#memories !== undefined) {
      try {
        await this.#memories.remember(fold.description, await this.#scrub(params.message));
      } catch {
        // a lesson that cannot be kept does not fail the return
      }
    }
    return {
      ok: true,
      value: {
        fold_id: id,
        forced,
        reason: fold.reason,
        tokens_used: fold.used,
        budget: fold.budget,
        message: scrubbed,
        forced_children: inner,
        active_fold_id: this.#chain.at(-1) ?? null,
      },
    };
  }

  status(): FoldStatusAnswer {
    this.#expire();
    const now = this.#now();
    return {
      active_fold_id: this.#chain.at(-1) ?? null,
      folds: this.ledger.status().map((f) => ({
        fold_id: f.id,
        parent_fold_id: f.parentId,
        depth: f.depth,
        description: f.description,
        status: f.status,
        reason: f.reason,
        tokens_used: f.used,
        budget: f.budget,
        tokens_left: Math.max(0, f.budget - f.used),
        seconds_left: f.status === "open" ? Math.max(0, (f.deadline - now) / 1000) : null,
      })),
    };
  }

  /**
   * Whether a tool may run now: not inside a fold that was forced to return (its budget or time
   * is spent) until the agent returns from it.
   */
  admit(): FoldCallResult<null> {
    this.#expire();
    const active = this.#active();
    if (active !== undefined && active.status !== "open")
      return refused(`${this.#forcedLine(active)}: call return with what you found`);
    return { ok: true, value: null };
  }

  /** Counts a tool's output against the active fold (none at the top level). */
  meter(output: string): MeterNotice {
    this.#expire();
    const active = this.#active();
    if (active === undefined || active.status !== "open")
      return { foldId: active?.id ?? null, tokens: 0, notice: null };
    const tokens = this.#count(output);
    const outcome = this.ledger.meter(active.id, tokens);
    let notice: string | null = null;
    if (outcome.state === "exhausted") {
      this.ledger.close(active.id, "budget");
      notice = `${this.#forcedLine(this.ledger.get(active.id) as FoldEntry)}: call return with what you found`;
    } else if (outcome.state === "warning") {
      notice = `fold ${active.id}: ${budgetWarningText(outcome.left)}`;
    }
    return { foldId: active.id, tokens, notice };
  }

  /** Forces every open fold (the MCP session ended). */
  closeAll(reason: FoldForcedReason = "cancelled"): void {
    for (const id of [...this.ledger.openIds()].reverse()) this.ledger.close(id, reason);
    this.#chain.length = 0;
  }

  #active(): FoldEntry | undefined {
    const id = this.#chain.at(-1);
    return id === undefined ? undefined : this.ledger.get(id);
  }

  #forcedLine(fold: FoldEntry): string {
    return `fold ${fold.id} was forced to return (${fold.reason ?? "budget"}; ${fold.used} of ${fold.budget} tokens used)`;
  }

  /** Folds past their timeout are forced, and the open folds inside them with them. */
  #expire(): void {
    for (const id of this.ledger.expired(this.#now())) {
      const at = this.#chain.indexOf(id);
      if (at !== -1)
        for (const inner of this.#chain.slice(at + 1)) this.ledger.close(inner, "timeout");
      this.ledger.close(id, "timeout");
    }
  }
}

function refused<T>(message: string): FoldCallResult<T> {
  return { ok: false, message };
}
