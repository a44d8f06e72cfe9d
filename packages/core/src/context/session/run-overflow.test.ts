import { describe, expect, it } from "vitest";
import {
  collect,
  errors,
  type Harness,
  harness,
  say,
  states,
} from "../../../test/support/session-harness.js";
import type { SessionEvent } from "../../protocol/events.js";

// A provider's "prompt is too long" inside a session's run: the session optimizes the branch with
// its own strategies, stores the optimization (the transcript's divider) with a context_update
// that says why, and sends the request once more; a second overflow fails the run clearly.

const overflow = {
  error: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" },
};

/** A session with `turns` long exchanges already answered. */
async function longSession(h: Harness, turns: number) {
  const session = await h.manager.create();
  for (let i = 0; i < turns; i++) {
    await collect(
      session.sendMessage({ type: "text", text: `question ${i} ${"word ".repeat(300)}` }),
    );
  }
  expect(session.state.type).toBe("Idle");
  return session;
}

function overflowUpdates(events: readonly SessionEvent[]) {
  return events.flatMap((e) =>
    e.name === "context_update" && e.payload.metadata.reason === "context_overflow"
      ? [e.payload]
      : [],
  );
}

describe("overflow recovery in a session", () => {
  it("optimizes the branch, says so, and retries the request once", async () => {
    const turns = 6;
    const h = harness([
      ...Array.from({ length: turns }, () => say("ok")),
      overflow,
      say("Fits now."),
    ]);
    const session = await longSession(h, turns);
    const events = await collect(session.sendMessage({ type: "text", text: "and now?" }));

    expect(states(events)).toEqual([
      "ProcessingUserMessage",
      "EnhancingSystemPrompt",
      "OptimizingContext",
      "PreparingLLMRequest",
      "ConnectingToLLM",
      // the provider refused the request: optimize, then the request again
      "OptimizingContext",
      "PreparingLLMRequest",
      "ConnectingToLLM",
      "AwaitingLLMFirstChunk",
      "StreamingLLMResponse",
      "ProcessingLLMResponse",
      "Idle",
    ]);
    expect(errors(events)).toEqual([]);
    const [update, ...more] = overflowUpdates(events);
    expect(more).toEqual([]);
    expect(update?.current_state.type).toBe("OptimizingContext");
    expect(update?.metadata).toMatchObject({ changed: true, retrying: true });
    const tokensBefore = update?.metadata.tokens_before as number;
    const tokensAfter = update?.metadata.tokens_after as number;
    expect(tokensAfter).toBeLessThanOrEqual(Math.floor(tokensBefore * 0.7));

    // the request sent again is the optimized one
    const [refused, retried] = h.provider.requests.slice(-2);
    expect(retried!.messages.length).toBeLessThan(refused!.messages.length);
    // the optimization is stored like a manual one: the transcript shows its divider
    const view = session.messages({ view: "optimized" });
    expect(view.optimizations.map((o) => o.id)).toEqual([update?.metadata.optimization_id]);
    expect(view.messages.at(-1)).toMatchObject({ role: "assistant", body: { text: "Fits now." } });
    // nothing stored was lost: the full branch still holds every message
    expect(session.messages({ view: "full" }).messages).toHaveLength(2 * turns + 2);

    // the stored event log says the same as the live stream
    const stored = await h.store.readEvents(session.id, 0);
    expect(
      stored.filter(
        (e) =>
          e.name === "context_update" &&
          (e.payload as { metadata: Record<string, unknown> }).metadata.reason ===
            "context_overflow",
      ),
    ).toHaveLength(1);
  });

  it("a second overflow fails the run with a clear context_overflow error", async () => {
    const turns = 6;
    const h = harness([...Array.from({ length: turns }, () => say("ok")), overflow, overflow]);
    const session = await longSession(h, turns);
    const events = await collect(session.sendMessage({ type: "text", text: "and now?" }));
    expect(overflowUpdates(events)).toHaveLength(1);
    expect(h.provider.requests).toHaveLength(turns + 2);
    expect(states(events).slice(-2)).toEqual(["ConnectingToLLM", "Failed"]);
    const [error, ...others] = errors(events);
    expect(others).toEqual([]);
    expect(error).toMatchObject({ code: "context_overflow", recoverable: true });
    expect(error?.message).toMatch(
      /still too long for the model after optimizing it from \d+ to \d+ tokens/,
    );
    expect(error?.message).toContain("prompt is too long: 250000 tokens > 200000 maximum");
    expect(session.state).toMatchObject({ type: "Failed", recoverable: true });
  });

  it("nothing to shrink (one short message): no retry, a clear error", async () => {
    const h = harness([overflow, say("never")]);
    const session = await h.manager.create();
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(h.provider.requests).toHaveLength(1);
    expect(overflowUpdates(events)).toEqual([]);
    expect(errors(events)).toMatchObject([{ code: "context_overflow" }]);
    expect(errors(events)[0]?.message).toContain("optimizing it cannot make it smaller");
    expect(session.state.type).toBe("Failed");
  });

  it("another error after the retry keeps its own code", async () => {
    const turns = 6;
    const h = harness([
      ...Array.from({ length: turns }, () => say("ok")),
      overflow,
      { error: { status: 500, message: "upstream down" } },
    ]);
    const session = await longSession(h, turns);
    const events = await collect(session.sendMessage({ type: "text", text: "and now?" }));
    expect(overflowUpdates(events)).toHaveLength(1);
    expect(errors(events)).toMatchObject([{ code: "llm_connection", message: "upstream down" }]);
  });
});
