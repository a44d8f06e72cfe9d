import { describe, expect, it } from "vitest";
import { collect, errors, harness, say, silent } from "../../../test/support/session-harness.js";
import type { MessageProcessor } from "../pipeline.js";
import { ProcessorError } from "../pipeline.js";
import { createProcessorRegistry, DEFAULT_PIPELINE } from "../processor-registry.js";

// The message pipeline in real sessions (context-manager "Conditional processor execution",
// "Pipeline error handling"; issue #16 item 5).

function tracking(name: string, ran: string[], kind: "continue" | "complete"): MessageProcessor {
  return {
    name,
    async process(message) {
      ran.push(name);
      return { kind, message };
    },
  };
}

describe("the pipeline of a session", () => {
  it("a processor's complete skips the rest, and the timings are kept on the stored message", async () => {
    const ran: string[] = [];
    const processors = createProcessorRegistry({
      extra: [tracking("gate", ran, "complete"), tracking("after", ran, "continue")],
    });
    const h = harness([say("ok")], { processors });
    const session = await h.manager.create();
    await collect(
      session.updateBranch(session.activeBranchId, {
        pipeline: { processors: ["gate", "after", ...DEFAULT_PIPELINE.processors] },
      }),
    );
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(errors(events)).toEqual([]);
    expect(ran).toEqual(["gate"]);
    const [user] = session.messages().messages;
    expect(user?.meta?.pipeline?.completed_by).toBe("gate");
    expect(user?.meta?.pipeline?.processors.map((p) => p.processor)).toEqual(["gate"]);
    // the model still got a system prompt and the message
    expect(h.provider.requests[0]?.messages).toHaveLength(1);
    expect(h.provider.requests[0]?.systemPrompt).not.toBe("");

    // the default pipeline records every processor's time
    const plain = harness([say("ok")]);
    const other = await plain.manager.create();
    await collect(other.sendMessage({ type: "text", text: "hi" }));
    const timed = other.messages().messages[0]?.meta?.pipeline;
    expect(timed?.processors.map((p) => p.processor)).toEqual(DEFAULT_PIPELINE.processors);
    expect(timed?.processors.every((p) => p.ms >= 0)).toBe(true);
    // the optimization completes the pipeline: the message is ready for the model
    expect(timed?.completed_by).toBe("optimization");
  });

  it("optimization completes the pipeline: a processor after it never changes a measured view", async () => {
    const ran: string[] = [];
    const processors = createProcessorRegistry({ extra: [tracking("late", ran, "continue")] });
    const h = harness([say("ok")], { processors });
    const session = await h.manager.create();
    await collect(
      session.updateBranch(session.activeBranchId, {
        pipeline: { processors: [...DEFAULT_PIPELINE.processors, "late"] },
      }),
    );
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(errors(events)).toEqual([]);
    expect(ran).toEqual([]);
    const pipeline = session.messages().messages[0]?.meta?.pipeline;
    expect(pipeline?.completed_by).toBe("optimization");
    expect(pipeline?.processors.map((p) => p.processor)).toEqual(DEFAULT_PIPELINE.processors);
  });

  it("a failing processor is logged with its trace, the user gets the error, nothing is stored", async () => {
    const failing: MessageProcessor = {
      name: "flaky",
      async process() {
        throw new ProcessorError("flaky", "the index is locked", { recoverable: true });
      },
    };
    const h = harness([say("never")], {
      processors: createProcessorRegistry({ extra: [failing] }),
    });
    const session = await h.manager.create();
    await collect(
      session.updateBranch(session.activeBranchId, {
        pipeline: { processors: ["flaky", ...DEFAULT_PIPELINE.processors] },
      }),
    );
    const before = silent.entries.length;
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(errors(events)[0]).toMatchObject({ message: "the index is locked", recoverable: true });
    expect(session.messages().messages).toEqual([]);
    expect(h.provider.requests).toHaveLength(0);
    const logged = silent.entries.slice(before).find((e) => e.level === "error");
    expect(logged?.message).toBe("the message pipeline failed");
  });
});
