import type { AgentMessage, Usage } from "../model/llm-messages.js";
import { defaultTokenCounter, totalTokens } from "./token-count.js";
import type { TokenCounter } from "./types.js";

// REQ-136: how full the context window is. The provider's reported usage for the last request is
// the ground truth for the messages that request covered; only the messages appended since are
// estimated locally. Provider figures include the system prompt and tool definitions, so
// currentTokens() is comparable with maxContextTokens, not with the optimization budget.

interface Report {
  /** input + cacheRead + cacheWrite + output of the reported request */
  tokens: number;
  /** how many history messages the report covers (the prompt plus the response) */
  messageCount: number;
  /** the message at messageCount − 1 when the report was made, if given: detects a replaced history */
  anchor: AgentMessage | undefined;
}

export class ContextTracker {
  readonly #counter: TokenCounter;
  readonly #systemPromptTokens: number;
  #report: Report | undefined;

  /**
   * @param systemPromptTokens added to the local estimate when no usable report exists, so the
   *   figure stays in the same unit as a provider report (which includes the system prompt)
   */
  constructor(counter: TokenCounter = defaultTokenCounter(), systemPromptTokens = 0) {
    this.#counter = counter;
    this.#systemPromptTokens = systemPromptTokens;
  }

  /**
   * Record the usage of a model response. `messageCountAtReport` is the history length including
   * that response (the prompt messages plus the assistant message). Pass `anchor` — the message at
   * index messageCountAtReport − 1, normally the assistant message — to have a later replaced
   * history (optimization, restore) detected; otherwise call reset() after replacing it. A usage of
   * all zeros (a provider that reports nothing) is ignored.
   */
  recordUsage(usage: Usage, messageCountAtReport: number, anchor?: AgentMessage): void {
    const tokens = usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
    if (tokens === 0) return;
    this.#report = { tokens, messageCount: messageCountAtReport, anchor };
  }

  /** Forget the last report (the history was replaced). */
  reset(): void {
    this.#report = undefined;
  }

  /** Tokens the provider reported, if the report still applies to `messages`. */
  reportedTokens(messages: readonly AgentMessage[]): number | undefined {
    const report = this.#report;
    if (!report || report.messageCount > messages.length) return undefined;
    if (report.anchor !== undefined && messages[report.messageCount - 1] !== report.anchor) {
      return undefined;
    }
    return report.tokens;
  }

  /**
   * Reported tokens plus local estimates of the messages after the reported prefix; a full local
   * estimate (plus systemPromptTokens) when there is no applicable report.
   */
  currentTokens(messages: readonly AgentMessage[]): number {
    const reported = this.reportedTokens(messages);
    if (reported === undefined) {
      return this.#systemPromptTokens + totalTokens(messages, this.#counter);
    }
    const since = messages.slice(this.#report!.messageCount);
    return reported + totalTokens(since, this.#counter);
  }
}
