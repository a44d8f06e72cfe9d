import type { AssistantMessage, Usage } from "../model/llm-messages.js";
import type { PersonRef } from "../model/person.js";
import type { ProviderEvent, StreamProvider, StreamRequest } from "./provider.js";

// Per-person monthly token budgets (issue #25): a model request that would take a person past
// their month's budget is refused BEFORE it is sent, and every response's tokens are added to
// their month. The person is the one the running operation acts for (the run's startedBy); the
// host decides where budgets and usage live (the web app: packages/db, one atomic statement per
// response, so several instances on one PostgreSQL count right).

/** Where budgets and usage live. */
export interface TokenBudget {
  /**
   * The person's budget this month: undefined when they have none (no limit). `usedTokens` is
   * what their runs used so far this calendar month (UTC).
   */
  remaining(person: PersonRef): Promise<{ monthlyTokens: number; usedTokens: number } | undefined>;
  /** Adds a response's tokens to the person's month (atomically). */
  record(person: PersonRef, tokens: number): Promise<void>;
}

/** The tokens a response counts against a budget: its total as the provider reported it. */
export function billedTokens(usage: Usage): number {
  return usage.totalTokens > 0 ? usage.totalTokens : usage.input + usage.output;
}

/**
 * A rough count of what a request sends (its JSON's bytes / 4, the estimate the optimizer uses
 * for text): enough to refuse a request that would clearly go past the budget.
 */
export function estimateRequestTokens(request: StreamRequest): number {
  const text = JSON.stringify([request.systemPrompt, request.messages, request.tools]);
  return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}

/** The refusal's text, naming the budget, the person and what is used; undefined: it may go. */
export function budgetRefusal(
  person: PersonRef,
  budget: { monthlyTokens: number; usedTokens: number },
  requestTokens: number,
): string | undefined {
  const { monthlyTokens, usedTokens } = budget;
  const of = `monthly token budget of ${monthlyTokens} tokens for ${person.name}`;
  if (usedTokens >= monthlyTokens) return `${of} is used up (${usedTokens} used)`;
  if (usedTokens + requestTokens > monthlyTokens) {
    return `${of} would be exceeded: ${usedTokens} used, and this request needs about ${requestTokens} more`;
  }
  return undefined;
}

/**
 * `provider` with the budget of the person `person()` names at each request. A refused request
 * never reaches `provider`: the stream ends at once with an `error` (kind `other`: not retried),
 * so the loop ends the run as a failed model request (nothing is lost; the session rests in
 * Failed, recoverable once the budget allows). No person (an internal chore): no budget applies.
 * A budget that cannot be read refuses too (a budget is a limit: it fails closed).
 */
export function budgetedProvider(
  provider: StreamProvider,
  person: () => PersonRef | null,
  budget: TokenBudget,
  logger?: { warn(message: string, details?: Record<string, unknown>): void },
): StreamProvider {
  async function* stream(request: StreamRequest, signal: AbortSignal) {
    const who = person();
    if (who === null) {
      yield* provider.stream(request, signal);
      return;
    }
    let refusal: string | undefined;
    try {
      const current = await budget.remaining(who);
      if (current !== undefined) {
        refusal = budgetRefusal(who, current, estimateRequestTokens(request));
      }
    } catch (error) {
      refusal = `the token budget of ${who.name} could not be checked: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (refusal !== undefined) {
      yield refused(request, refusal);
      return;
    }
    for await (const event of provider.stream(request, signal)) {
      // counted before the last event goes on: the next request of the run sees it
      if (event.type === "done" || event.type === "error") {
        const usage = event.type === "done" ? event.message.usage : event.partial.usage;
        const tokens = billedTokens(usage);
        if (tokens > 0) {
          await budget.record(who, tokens).catch((error: unknown) =>
            logger?.warn("could not count a response's tokens against the budget", {
              person: who.id,
              tokens,
              error: error instanceof Error ? error.message : String(error),
            }),
          );
        }
      }
      yield event;
    }
  }
  const wrapped: StreamProvider = {
    providerId: provider.providerId,
    stream: (request, signal) => stream(request, signal),
  };
  if (provider.providerIdFor !== undefined) {
    const inner = provider.providerIdFor.bind(provider);
    wrapped.providerIdFor = (model) => inner(model);
  }
  return wrapped;
}

function refused(request: StreamRequest, message: string): ProviderEvent {
  const partial: AssistantMessage = {
    role: "assistant",
    content: [],
    stopReason: "error",
    model: request.model.model,
    provider: request.model.protocol,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
    timestamp: Date.now(),
    errorMessage: message,
  };
  return { type: "error", error: { kind: "other", message }, partial };
}
