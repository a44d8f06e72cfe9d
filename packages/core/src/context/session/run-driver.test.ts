import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  echoTool,
  gatedTool,
  harness,
  say,
} from "../../../test/support/session-harness.js";
import type { RunResult } from "./run-driver.js";

// A run ends with one value (RunStop): each way a run can end gives its own stop, which is also
// the operation's typed result, and the session rests where that stop says.

/** The operation's typed result, after reading its events to the end. */
async function ran(
  operation: AsyncIterable<unknown> & { result: Promise<{ ok: boolean; value?: RunResult }> },
) {
  await collect(operation as AsyncIterable<never>);
  const result = await operation.result;
  expect(result.ok).toBe(true);
  return result.value;
}

describe("RunStop: one value per end of a run", () => {
  it("completed: an answer without tool calls rests in Idle", async () => {
    const h = harness([say("Hello.")]);
    const session = await h.manager.create();
    const result = await ran(session.sendMessage({ type: "text", text: "hi" }));
    expect(result).toEqual({ type: "ran", stop: { type: "completed" } });
    expect(session.state.type).toBe("Idle");
  });

  it("awaiting_approval: a call the policy holds rests in AwaitingToolApproval", async () => {
    const h = harness([call("write_note", { text: "a" }, "c1")]);
    const session = await h.manager.create();
    const result = await ran(session.sendMessage({ type: "text", text: "write" }));
    expect(result).toEqual({
      type: "ran",
      stop: {
        type: "awaiting_approval",
        waiting: {
          type: "AwaitingToolApproval",
          pending_requests: ["c1"],
          tool_names: ["write_note"],
        },
      },
    });
    expect(session.state.type).toBe("AwaitingToolApproval");
    // a decision that leaves nothing pending runs the loop on; its own result says how it ended
    const next = await ran(
      session.decideToolCalls([{ tool_call_id: "c1", decision: "deny", remember: false }]),
    );
    expect(next?.type).toBe("ran");
  });

  it("interrupted: the running tool is cut and the session pauses", async () => {
    const gated = gatedTool();
    const h = harness([call("slow", {}), say("never")], { tools: () => [gated.tool, echoTool] });
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const operation = session.sendMessage({ type: "text", text: "go" });
    const collecting = collect(operation);
    await gated.started;
    await collect(session.interrupt());
    await collecting;
    expect(await operation.result).toEqual({
      ok: true,
      value: { type: "ran", stop: { type: "interrupted" } },
    });
    expect(session.state).toMatchObject({ type: "Paused", reason: "interrupted" });
    gated.release();
  });

  it("timed_out: an iteration past its timeout fails recoverably", async () => {
    const gated = gatedTool();
    const h = harness([call("slow", {}), say("never")], { tools: () => [gated.tool] });
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" }, auto_loop_iteration_timeout_ms: 30 },
    });
    const result = await ran(session.sendMessage({ type: "text", text: "go" }));
    expect(result).toEqual({ type: "ran", stop: { type: "timed_out", timeoutMs: 30 } });
    expect(session.state).toMatchObject({ type: "Failed", recoverable: true });
    gated.release();
  });

  it("auto_loop_limit: the depth limit pauses with a notice", async () => {
    const h = harness([call("echo", { text: "1" }), call("echo", { text: "2" }), say("x")]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "limited_auto", max_depth: 1 } },
    });
    const result = await ran(session.sendMessage({ type: "text", text: "go" }));
    expect(result).toEqual({ type: "ran", stop: { type: "auto_loop_limit" } });
    expect(session.state).toMatchObject({ type: "Paused", reason: "auto_loop_limit" });
  });

  it("model_failed: a failed model call rests in Failed with its error", async () => {
    const h = harness([{ error: { status: 500, message: "upstream down" } }]);
    const session = await h.manager.create();
    const result = await ran(session.sendMessage({ type: "text", text: "hi" }));
    expect(result).toMatchObject({
      type: "ran",
      stop: { type: "model_failed", error: { code: "llm_connection" } },
    });
    expect(session.state).toMatchObject({ type: "Failed", recoverable: true });
  });

  it("failed: a write that fails mid-run ends the operation with a storage error, not a value", async () => {
    const h = harness([call("echo", { text: "1" }), say("done")]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    let writes = 0;
    const write = h.store.write.bind(h.store);
    h.store.write = async (id, change) => {
      // the user's message and the first response's writes pass; then the store breaks
      if (++writes === 4) throw new Error("disk full");
      return write(id, change);
    };
    const operation = session.sendMessage({ type: "text", text: "go" });
    const events = await collect(operation);
    const result = await operation.result;
    expect(result).toMatchObject({ ok: false, error: { code: "storage" } });
    expect(events.filter((e) => e.name === "error").map((e) => e.sequence)).toEqual([0]);
    expect(["Idle", "Failed", "Paused"]).toContain(session.state.type);
  });
});
