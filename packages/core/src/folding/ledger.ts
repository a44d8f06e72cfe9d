import { z } from "zod";
import { type FoldingSettings, FoldingSettingsSchema } from "../model/session-config.js";
import type { FoldReturned } from "../protocol/events.js";

// The fold ledger (issue #13): the bookkeeping of a session's folds, apart from whatever runs
// them. It opens folds (refusing one beyond the depth, concurrency, budget or timeout limits),
// meters tokens against their budgets (the 80% warning, exhaustion at 100%), closes them (normal
// or forced, with the reason and the tokens used) and lists them. It is pure: no timers, no I/O;
// the clock is injected and timeouts are read with `expired(now)` by whoever drives the folds
// (the fold runtime for Arbor's own agents, the MCP server for other agents).

/** The session config's `folding` with the spec's defaults (model/session-config.ts). */
export type FoldingConfig = FoldingSettings;
export const DEFAULT_FOLDING_CONFIG: FoldingConfig = FoldingSettingsSchema.parse({});

/** The share of the budget at which a fold is warned. */
export const FOLD_WARNING_SHARE = 0.8;
/** The share of a fold's budget its injected memories may take. */
export const FOLD_MEMORY_SHARE = 0.2;

/** Why a fold was forced to return (protocol/events.ts `fold_returned.reason`). */
export type FoldForcedReason = NonNullable<FoldReturned["reason"]>;

export interface FoldOpenRequest {
  description: string;
  /** tokens; `default_budget` when absent */
  budget?: number;
  /** `default_timeout_seconds` when absent */
  timeoutSeconds?: number;
  /** the fold this one is opened in; a top-level fold has none */
  parentId?: string;
}

export type FoldStatus = "open" | "returned" | "forced";

export interface FoldEntry {
  id: string;
  parentId: string | null;
  /** 1 for a top-level fold */
  depth: number;
  description: string;
  budget: number;
  used: number;
  timeoutSeconds: number;
  startedAt: number;
  /** `startedAt + timeoutSeconds * 1000`: past it, `expired()` lists the fold */
  deadline: number;
  status: FoldStatus;
  /** set when the fold was forced */
  reason: FoldForcedReason | null;
  /** the 80% warning was given */
  warned: boolean;
  endedAt: number | null;
}

/** Why `open` refused, the field it concerns, and a message for the model. */
export type FoldRefusal = {
  code: "depth" | "concurrent" | "budget" | "timeout" | "parent";
  message: string;
};

export type FoldOpenResult = { ok: true; fold: FoldEntry } | { ok: false; refusal: FoldRefusal };

/** Where a fold stands after `meter`. */
export interface MeterOutcome {
  /** `within` below 80%, `warning` from 80%, `exhausted` at or beyond 100% */
  state: "within" | "warning" | "exhausted";
  /** true on the one call that crossed 80% (emit the budget warning then) */
  warningCrossed: boolean;
  used: number;
  budget: number;
  /** never below 0 */
  left: number;
}

export interface FoldClosed {
  id: string;
  forced: boolean;
  reason: FoldForcedReason | null;
  tokensUsed: number;
  budget: number;
  durationMs: number;
  /** children still open when it closed: the caller forces them (`parent_returned`) */
  openChildren: string[];
}

/** The head of a forced fold's return message: why, and how much of its budget it used. */
export function forcedReturnHeader(reason: FoldForcedReason, used: number, budget: number): string {
  return `[fold forced to return: ${reason}; ${used} of ${budget} tokens used]`;
}

/** The message injected into a warned fold's next request. */
export function budgetWarningText(left: number): string {
  return `${Math.max(0, left)} tokens left: finish and return.`;
}

export interface FoldLedgerOptions {
  config?: Partial<FoldingConfig>;
  now?: () => number;
  /** fold ids; `fold-1`, `fold-2`, … by default */
  newId?: () => string;
  /** the folds of an earlier ledger (its `snapshot()`), kept elsewhere meanwhile */
  restore?: FoldLedgerSnapshot;
}

const FoldEntrySchema = z.object({
  id: z.string(),
  parentId: z.string().nullable(),
  depth: z.number().int().positive(),
  description: z.string(),
  budget: z.number().int().positive(),
  used: z.number().nonnegative(),
  timeoutSeconds: z.number().positive(),
  startedAt: z.number(),
  deadline: z.number(),
  status: z.enum(["open", "returned", "forced"]),
  reason: z.enum(["budget", "timeout", "cancelled", "parent_returned", "crash"]).nullable(),
  warned: z.boolean(),
  endedAt: z.number().nullable(),
}) satisfies z.ZodType<FoldEntry>;

/** A ledger as data: every fold, and how many ids it has handed out (so the next is new). */
export const FoldLedgerSnapshotSchema = z.object({
  folds: z.array(FoldEntrySchema),
  issued: z.number().int().nonnegative(),
});
export type FoldLedgerSnapshot = z.infer<typeof FoldLedgerSnapshotSchema>;

export class FoldLedger {
  readonly config: FoldingConfig;
  readonly #folds = new Map<string, FoldEntry>();
  readonly #open = new Set<string>();
  readonly #now: () => number;
  readonly #newId: (() => string) | undefined;
  /** ids handed out so far */
  #issued = 0;

  constructor(options: FoldLedgerOptions = {}) {
    this.config = { ...DEFAULT_FOLDING_CONFIG, ...options.config };
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId;
    if (options.restore !== undefined) {
      this.#issued = options.restore.issued;
      for (const fold of options.restore.folds) {
        this.#folds.set(fold.id, { ...fold });
        if (fold.status === "open") this.#open.add(fold.id);
      }
    }
  }

  /** The ledger as data (JSON-safe): `new FoldLedger({ restore })` continues from it. */
  snapshot(): FoldLedgerSnapshot {
    return { folds: this.status(), issued: this.#issued };
  }

  /** Opens a fold, or says why not (depth, concurrency, budget or timeout beyond the limits). */
  open(request: FoldOpenRequest): FoldOpenResult {
    const c = this.config;
    let depth = 1;
    if (request.parentId !== undefined) {
      const parent = this.#folds.get(request.parentId);
      if (parent === undefined || parent.status !== "open")
        return refuse("parent", `fold ${request.parentId} is not open`);
      depth = parent.depth + 1;
    }
    if (depth > c.max_depth)
      return refuse("depth", `fold depth ${depth} exceeds the maximum depth ${c.max_depth}`);
    if (this.#open.size >= c.max_concurrent)
      return refuse("concurrent", `at most ${c.max_concurrent} folds may be open at once`);
    const budget = request.budget ?? c.default_budget;
    if (!Number.isInteger(budget) || budget <= 0)
      return refuse("budget", `budget ${budget} is not a positive whole number of tokens`);
    if (budget > c.max_budget)
      return refuse("budget", `budget ${budget} exceeds the maximum ${c.max_budget}`);
    const timeoutSeconds = request.timeoutSeconds ?? c.default_timeout_seconds;
    if (!(timeoutSeconds > 0))
      return refuse("timeout", `timeout_seconds ${timeoutSeconds} is not positive`);
    if (timeoutSeconds > c.max_timeout_seconds)
      return refuse(
        "timeout",
        `timeout_seconds ${timeoutSeconds} exceeds the maximum ${c.max_timeout_seconds}`,
      );
    const startedAt = this.#now();
    this.#issued += 1;
    const fold: FoldEntry = {
      id: this.#newId?.() ?? `fold-${this.#issued}`,
      parentId: request.parentId ?? null,
      depth,
      description: request.description,
      budget,
      used: 0,
      timeoutSeconds,
      startedAt,
      deadline: startedAt + timeoutSeconds * 1000,
      status: "open",
      reason: null,
      warned: false,
      endedAt: null,
    };
    this.#folds.set(fold.id, fold);
    this.#open.add(fold.id);
    return { ok: true, fold: { ...fold } };
  }

  /**
   * Counts `tokens` against an open fold's budget. A closed fold counts nothing more and reports
   * where it ended. Throws only for an id the ledger never issued (a caller's bug).
   */
  meter(foldId: string, tokens: number): MeterOutcome {
    const fold = this.#get(foldId);
    let warningCrossed = false;
    if (fold.status === "open" && tokens > 0) {
      fold.used += tokens;
      if (!fold.warned && fold.used >= FOLD_WARNING_SHARE * fold.budget) {
        fold.warned = true;
        warningCrossed = true;
      }
    }
    return { ...standing(fold), warningCrossed };
  }

  /** Where a fold stands, without counting anything. */
  standing(foldId: string): MeterOutcome {
    return { ...standing(this.#get(foldId)), warningCrossed: false };
  }

  /**
   * Closes an open fold: normally, or forced with `reason`. Returns null when it was already
   * closed (the first close wins: a fold forced on timeout stays forced if `return` comes late).
   */
  close(foldId: string, forced?: FoldForcedReason): FoldClosed | null {
    const fold = this.#get(foldId);
    if (fold.status !== "open") return null;
    fold.status = forced === undefined ? "returned" : "forced";
    fold.reason = forced ?? null;
    fold.endedAt = this.#now();
    this.#open.delete(foldId);
    return {
      id: fold.id,
      forced: forced !== undefined,
      reason: fold.reason,
      tokensUsed: fold.used,
      budget: fold.budget,
      durationMs: fold.endedAt - fold.startedAt,
      openChildren: this.#openChildren(foldId),
    };
  }

  /** Open folds whose timeout has passed at `now`, oldest first. */
  expired(now = this.#now()): string[] {
    return [...this.#open].filter((id) => (this.#folds.get(id)?.deadline ?? Infinity) <= now);
  }

  /** Every fold, in opening order (copies). */
  status(): FoldEntry[] {
    return [...this.#folds.values()].map((f) => ({ ...f }));
  }

  get(foldId: string): FoldEntry | undefined {
    const fold = this.#folds.get(foldId);
    return fold && { ...fold };
  }

  /** Open fold ids, in opening order. */
  openIds(): string[] {
    return [...this.#open];
  }

  get openCount(): number {
    return this.#open.size;
  }

  /** The deepest open fold, newest first among equals: where work goes by default. */
  innermostOpen(): FoldEntry | undefined {
    let best: FoldEntry | undefined;
    for (const id of this.#open) {
      const fold = this.#folds.get(id);
      if (fold && (best === undefined || fold.depth >= best.depth)) best = fold;
    }
    return best && { ...best };
  }

  #openChildren(foldId: string): string[] {
    return [...this.#open].filter((id) => this.#folds.get(id)?.parentId === foldId);
  }

  #get(foldId: string): FoldEntry {
    const fold = this.#folds.get(foldId);
    if (fold === undefined) throw new Error(`no fold ${foldId} in this ledger`);
    return fold;
  }
}

function refuse(code: FoldRefusal["code"], message: string): FoldOpenResult {
  return { ok: false, refusal: { code, message } };
}

function standing(fold: FoldEntry): Omit<MeterOutcome, "warningCrossed"> {
  const left = Math.max(0, fold.budget - fold.used);
  const state =
    fold.used >= fold.budget ? "exhausted" : fold.warned ? "warning" : ("within" as const);
  return { state, used: fold.used, budget: fold.budget, left };
}
