import { describe, expect, it } from "vitest";
import { decodeSessionControl, encodeSessionControl, type SessionControl } from "./coordination.js";

// Control messages travel between instances as text (PostgreSQL NOTIFY payloads): each kind comes
// back as it was sent, and anything else is not a control message.

describe("session control messages", () => {
  it("come back as they were sent", () => {
    const controls: SessionControl[] = [
      { type: "interrupt" },
      {
        type: "forward",
        request_id: "r1",
        operation: {
          kind: "decide",
          decisions: [{ tool_call_id: "c1", decision: "approve", remember: true }],
        },
      },
      {
        type: "forward",
        request_id: "r2",
        operation: {
          kind: "queue",
          payload: { type: "text", text: "and then?" },
          delivery: "steer",
        },
      },
      {
        type: "answer",
        request_id: "r1",
        handled: true,
        sequences: [7, 8],
        errors: [{ code: "invalid_request", message: "no pending call c2", recoverable: true }],
      },
      { type: "answer", request_id: "r2", handled: false, sequences: [], errors: [] },
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
      '{"type":"forward","request_id":"r1","operation":{"kind":"decide","decisions":[]}}',
      '{"type":"forward","request_id":"r1","operation":{"kind":"run","text":"rm -rf /"}}',
      '{"type":"answer","request_id":"r1","handled":true,"sequences":[0],"errors":[]}',
    ]) {
      expect(decodeSessionControl(text)).toBeUndefined();
    }
  });
});
