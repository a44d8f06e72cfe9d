import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, collect, harness, say } from "../../../test/support/session-harness.js";
import { registerTestTelemetry, type TestTelemetry } from "../../../test/support/telemetry-sdk.js";
import type { PersonRef } from "../../model/person.js";
import { TELEMETRY_NAMES } from "../../telemetry/names.js";
import { SessionManager } from "./session-manager.js";

// A session's runs as spans: a run that ends waiting for a decision, and its continuation run by
// another instance (a second SessionManager on the same store, its own recorder: as after a
// restart) in the same trace, continued from the trace context stored on the loop record.

const A = TELEMETRY_NAMES.attributes;
const ana: PersonRef = { id: "u-ana", name: "Ana" };
const ben: PersonRef = { id: "u-ben", name: "Ben" };

let otel: TestTelemetry;
beforeAll(() => {
  otel = registerTestTelemetry();
});
afterEach(() => otel.reset());

const runs = (spans: ReadableSpan[]) => spans.filter((s) => s.name === "invoke_agent arbor");

describe("a session's runs as spans", () => {
  it("continues a run decided on another instance in the run's trace, under its span", async () => {
    const h = harness([call("write_note", { text: "a" }, "w1"), say("Written.")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "write it" }, { by: ana }));
    const [first] = runs(otel.spans());
    expect(first?.attributes).toMatchObject({
      [A.loopStatus]: "waiting",
      [A.startedById]: "u-ana",
      [A.pendingToolCalls]: ["w1"],
      [A.conversationId]: session.id,
    });
    expect(first?.events.map((e) => e.name)).toContain(TELEMETRY_NAMES.events.approvalWait);
    // a message's first request is optimized once, while the message is processed, before the
    // run (it nests under the caller's context): the run sends that view as it is
    const optimizedUnder = () =>
      otel
        .spans()
        .filter((s) => s.name === TELEMETRY_NAMES.spans.contextOptimize)
        .map((s) => s.parentSpanContext?.spanId);
    expect(optimizedUnder()).toHaveLength(1);
    expect(optimizedUnder()).not.toContain(first?.spanContext().spanId);
    // the loop record keeps the span's trace context, in the store
    const [record] = await h.store.listLoops(session.id);
    expect(record?.traceparent).toBe(
      `00-${first?.spanContext().traceId}-${first?.spanContext().spanId}-01`,
    );

    // another instance: nothing in memory, only the store
    const elsewhere = new SessionManager({ ...h.deps });
    const there = await elsewhere.get(session.id);
    await collect(
      there?.decideToolCalls([{ tool_call_id: "w1", decision: "approve" }], { by: ben }) ??
        (async function* () {})(),
    );
    const continuation = runs(otel.spans()).find((s) => s !== first);
    expect(continuation?.spanContext().traceId).toBe(first?.spanContext().traceId);
    expect(continuation?.parentSpanContext?.spanId).toBe(first?.spanContext().spanId);
    // the Context Manager's optimization before a request of the run is a span of the run
    expect(optimizedUnder()).toContain(continuation?.spanContext().spanId);
    expect(continuation?.attributes).toMatchObject({
      [A.loopKind]: "continuation",
      [A.startedById]: "u-ben",
      [A.loopStatus]: "completed",
    });
    const write = otel.spans().find((s) => s.name === "execute_tool write_note");
    expect(write?.parentSpanContext?.spanId).toBe(continuation?.spanContext().spanId);
    expect(write?.attributes).toMatchObject({
      [A.toolCallId]: "w1",
      [A.approvalOutcome]: "approved",
      [A.approvalDeciderType]: "person",
      [A.approvalDeciderId]: "u-ben",
      [A.approvalDeciderName]: "Ben",
      [A.toolOutcome]: "approved",
    });
  });

  it("names the policy that let a call run, and the person who denied one", async () => {
    const h = harness([
      {
        blocks: [
          { type: "toolCall", name: "echo", arguments: { text: "x" }, id: "e1" },
          { type: "toolCall", name: "write_note", arguments: { text: "b" }, id: "w2" },
        ],
      },
      say("Done."),
    ]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "go" }, { by: ana }));
    await collect(session.decideToolCalls([{ tool_call_id: "w2", decision: "deny" }], { by: ben }));
    const echo = otel.spans().find((s) => s.name === "execute_tool echo");
    expect(echo?.attributes).toMatchObject({
      [A.approvalOutcome]: "auto",
      [A.approvalDeciderType]: "policy",
      [A.toolOutcome]: "auto",
    });
    expect(String(echo?.attributes[A.approvalRule])).toContain("approve_read_only");
    const write = otel.spans().find((s) => s.name === "execute_tool write_note");
    expect(write?.attributes).toMatchObject({
      [A.approvalOutcome]: "denied",
      [A.approvalDeciderId]: "u-ben",
      [A.toolOutcome]: "denied",
      [A.errorType]: "denied",
    });
  });
});
