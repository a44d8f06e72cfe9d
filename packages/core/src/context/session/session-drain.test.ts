import { describe, expect, it } from "vitest";
import { collect, harness, say, states } from "../../../test/support/session-harness.js";

// SessionManager.drain (graceful shutdown, issue #17): new operations are refused at once, a
// running one that ends within the grace ends normally, a later one is interrupted (its partial
// answer kept, the session Paused).

const slow = (chunks: number, delayMs: number) => ({
  blocks: [{ type: "text" as const, text: "abcd".repeat(chunks) }],
  chunkSize: 4,
  chunkDelayMs: delayMs,
});

describe("SessionManager.drain", () => {
  it("an operation that ends within the grace ends normally; new ones are refused", async () => {
    const h = harness([slow(5, 10)]);
    const session = await h.manager.create();
    const running = session.sendMessage({ type: "text", text: "go" });
    await new Promise((resolve) => setTimeout(resolve, 15));
    const drained = h.manager.drain(5_000);
    // (a message sent now would join the running answer as a queued message, not start one)
    const refused = await session.updateConfig({ system_prompt: "late" }).result;
    expect(refused.ok === false && refused.error.message).toMatch(/shutting down/);
    expect((await running.result).ok).toBe(true);
    await drained;
    expect(session.state.type).toBe("Idle");
    expect(session.messages().messages.map((m) => m.status)).toEqual(["complete", "complete"]);
  });

  it("an operation still running after the grace is interrupted: partial answer kept, Paused", async () => {
    const h = harness([slow(500, 10)]);
    const session = await h.manager.create();
    const running = session.sendMessage({ type: "text", text: "go" });
    const seen = collect(running);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await h.manager.drain(20);
    expect(states(await seen).at(-1)).toBe("Paused");
    expect(session.state.type).toBe("Paused");
    const answer = session.messages().messages.find((m) => m.role === "assistant");
    expect(answer?.status).toBe("incomplete");
  });

  it("an idle manager drains at once", async () => {
    const h = harness([say("hi")]);
    await h.manager.create();
    const started = Date.now();
    await h.manager.drain(10_000);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
