// One measured figure with its target, as printed and recorded by `pnpm bench` (the same shape as
// packages/core/bench/figure.ts, so bench-results/*.json read alike).
export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  /** human-readable target, e.g. "< 20 ms" */
  target: string;
  pass: boolean;
  /** a figure without a target, printed as INFO */
  informational?: boolean;
  notes?: string;
}

/** The servers every web bench runs against, started once by run.ts. */
export interface BenchContext {
  /** the app's production build (`next start`) */
  appUrl: string;
  /** the runtime's fake LLM server the app streams from */
  fakeUrl: string;
  /**
   * the baseline: a bare Next route streaming the same fake LLM through the AI SDK's streamText,
   * no persistence (bare-route/README.md)
   */
  bareUrl: string;
  /** the process groups of the app and the bare route, for their CPU time (cpu.ts) */
  appPid: number;
  barePid: number;
}

/** A bench file (`bench/*.bench.ts`) exports `run`. */
export type BenchRun = (context: BenchContext) => Promise<BenchFigure[]>;

/** The p-th percentile (0–100), nearest-rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
