import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, collect, harness, say } from "../../../test/support/session-harness.js";
import { registerTestTelemetry, type TestTelemetry } from "../../../test/support/telemetry-sdk.js";
import { TELEMETRY_NAMES } from "../../telemetry/names.js";

// Context optimization runs once per model request (issue #29 item 2): the pipeline's
// optimization step prepares a message's first request, and the run does not optimize that view
// a second time; each later request of the run (after tool results) is optimized once. Every pass
// is a span of its own (session-optimization.ts optimizeActiveBranch), counted here.

let otel: TestTelemetry;
beforeAll(() => {
  otel = registerTestTelemetry();
});
afterEach(() => otel.reset());

const passes = () =>
  otel.spans().filter((s) => s.name === TELEMETRY_NAMES.spans.contextOptimize).length;

describe("optimization passes per message", () => {
  it("optimizes a message answered in one request once", async () => {
    const h = harness([say("Hello.")]);
    const session = await h.manager.create();
    otel.reset();
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(h.provider.requests).toHaveLength(1);
    expect(passes()).toBe(1);
  });

  it("optimizes once per request when a tool call adds a second one", async () => {
    const h = harness([call("echo", { text: "x" }), say("Done.")]);
    const session = await h.manager.create();
    otel.reset();
    await collect(session.sendMessage({ type: "text", text: "echo x" }));
    expect(h.provider.requests).toHaveLength(2);
    expect(passes()).toBe(2);
  });

  it("optimizes an edited message's first request once", async () => {
    const h = harness([say("One."), say("Two.")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "first" }));
    const sent = session.messages().messages.find((m) => m.role === "user");
    otel.reset();
    await collect(session.editAndResend(sent?.id ?? "", "first, edited"));
    expect(passes()).toBe(1);
  });
});
