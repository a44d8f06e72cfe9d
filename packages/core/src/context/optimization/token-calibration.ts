import type { Usage } from "../../model/llm-messages.js";

// Token counts of a session, held against the provider's own (context-manager "Token limit
// detection": messages SHALL be tokenized accurately). Arbor counts every request with one
// tokenizer (o200k, agent/token-count.ts): cheap, cached per message, the same for every provider, and
// off by a provider-dependent factor (Claude's tokenizer counts 10–30 % more on prose and code).
// The provider's figure corrects it: Anthropic's count_tokens before a request, exact
// (session-token-count.ts), and every other provider's reported input usage after one. The ratio
// of the last such figure to the estimate of the same request scales every estimate after it, so
// the optimization trigger and the usage meter speak the provider's tokens.

/** Where a session's token figures come from. */
export type TokenCountSource =
  /** the tokenizer alone: no provider figure yet (or the model is the built-in offline one) */
  | "estimate"
  /** the estimate scaled by the provider's reported input usage of an earlier request */
  | "provider_usage"
  /** the estimate scaled by the provider's own count of the request (Anthropic count_tokens) */
  | "provider_count";

/** A provider figure further than this from the estimate is a fault (a proxy's usage), not a tokenizer. */
const MIN_RATIO = 0.5;
const MAX_RATIO = 3;

export class TokenCalibration {
  #ratio = 1;
  #source: TokenCountSource = "estimate";
  /** the estimate of the request most recently prepared: what the next reported usage is for */
  #expected: number | undefined;

  /** provider tokens per estimated token (1 until a provider figure arrives) */
  get ratio(): number {
    return this.#ratio;
  }

  get source(): TokenCountSource {
    return this.#source;
  }

  /** An estimate in the provider's tokens. */
  scale(estimated: number): number {
    return Math.round(estimated * this.#ratio);
  }

  /** A window in the provider's tokens, in estimated tokens (what the optimizer compares against). */
  unscale(providerTokens: number): number {
    return Math.floor(providerTokens / this.#ratio);
  }

  /** The provider counted `actual` tokens for a request estimated at `estimated`. */
  observe(estimated: number, actual: number, source: Exclude<TokenCountSource, "estimate">): void {
    if (!(estimated > 0) || !(actual > 0)) return;
    const ratio = actual / estimated;
    if (ratio < MIN_RATIO || ratio > MAX_RATIO) return;
    this.#ratio = ratio;
    this.#source = source;
  }

  /** Back to the plain estimate (the session stopped counting in the provider's tokens). */
  reset(): void {
    this.#ratio = 1;
    this.#source = "estimate";
    this.#expected = undefined;
  }

  /** The request about to be sent was estimated at `estimated` tokens. */
  expect(estimated: number): void {
    this.#expected = estimated;
  }

  /**
   * The provider's usage of the request last expected: its input, cache reads and cache writes
   * are what it counted (input excludes cached tokens, toUsage). An exact count taken before the
   * same request is not overwritten by it: both say the same, the count says it first.
   */
  observeUsage(usage: Usage): void {
    const expected = this.#expected;
    this.#expected = undefined;
    if (expected === undefined || this.#source === "provider_count") return;
    this.observe(expected, usage.input + usage.cacheRead + usage.cacheWrite, "provider_usage");
  }
}
