import { describe, expect, it } from "vitest";
import { decodeSessionControl, encodeSessionControl, type SessionControl } from "./coordination.js";

// Control messages travel between instances as text (PostgreSQL NOTIFY payloads): each kind comes
// back as it was sent, and anything else is not a control message.

describe("session control messages", () => {
  it("come back as they were sent", () => {
    const controls: SessionControl[] = [
      { type: "interrupt" },
      {
        type: "decide",
        request_id: "r1",
        decisions: [{ tool_call_id: "c1", decision: "approve", remember: true }],
      },
      { type: "decided", request_id: "r1", unknown: ["c2"] },
    ];
    for (const control of controls) {
      expect(decodeSessionControl(encodeSessionControl(control))).toEqual(control);
    }
  });

  it("refuse what is not one", () => {
    for (const text of [
      "interrupt",
      "{",
      "{}",
      '{"type":"shutdown"}',
      '{"type":"decide","request_id":"r1","decisions":[]}',
      '{"type":"decide","request_id":"r1","decisions":[{"tool_call_id":"c1","decision":"maybe"}]}',
    ]) {
      expect(decodeSessionControl(text)).toBeUndefined();
    }
  });
});
