import type { ContextMessage, MessageBody } from "@arbor/core/browser";

// Builders for test messages: a body plus whatever the test cares about; the rest is defaulted.

let counter = 0;

export function msg(
  body: MessageBody,
  overrides: Partial<Omit<ContextMessage, "body">> = {},
): ContextMessage {
  counter += 1;
  return {
    id: `m${counter}`,
    session_id: "s1",
    role: "assistant",
    status: "complete",
    created_at: "2025-06-10T12:00:00.000Z",
    body,
    ...overrides,
  };
}

export function text(value: string, overrides: Partial<Omit<ContextMessage, "body">> = {}) {
  return msg({ message_type: "text", text: value }, overrides);
}
