import type { Branch } from "../model/branch.js";
import type { ContextMessage, MessageType } from "../model/message-types.js";
import { sessionConfig } from "../model/session-config.js";
import type { SessionRecord } from "./types.js";

// Sample data for store and pool tests: one message of every body type, with every optional field
// filled, so a round trip that drops a field shows up. Plain data, no test framework, so the
// database store's tests can use it too.

export function sampleSession(
  id: string,
  options: { title?: string; at?: string } = {},
): { session: SessionRecord; branch: Branch } {
  const at = options.at ?? "2025-01-01T00:00:00.000Z";
  const branchId = `${id}-main`;
  return {
    session: {
      id,
      title: options.title ?? `Session ${id}`,
      config: sessionConfig({ workspace: "/tmp/ws", system_prompt: "be brief" }),
      state: { type: "Idle" },
      active_branch_id: branchId,
      created_at: at,
      updated_at: at,
    },
    branch: {
      id: branchId,
      session_id: id,
      name: "main",
      parent_branch_id: null,
      fork_message_id: null,
      message_ids: [],
      merged_from: [],
      created_at: at,
      updated_at: at,
    },
  };
}

/** A text message; `overrides` replace top-level fields. */
export function textMessage(
  sessionId: string,
  id: string,
  text = `text of ${id}`,
  overrides: Partial<ContextMessage> = {},
): ContextMessage {
  return {
    id,
    session_id: sessionId,
    role: "user",
    body: { message_type: "text", text },
    status: "complete",
    created_at: "2025-01-01T00:00:01.000Z",
    ...overrides,
  };
}

// A Record over the union: adding a message type without a sample here fails to compile.
const ALL_MESSAGE_TYPES: Record<MessageType, true> = {
  text: true,
  file_reference: true,
  tool_request: true,
  tool_result: true,
  mcp_resource: true,
  attachment: true,
  system_control: true,
  plan: true,
  question: true,
};

/** One fully-populated message of each of the body types, in a plausible order. */
export function everyMessageType(sessionId: string): ContextMessage[] {
  const base = { session_id: sessionId, status: "complete" as const };
  const messages: ContextMessage[] = [
    {
      ...base,
      id: "m-text",
      role: "user",
      body: { message_type: "text", text: "hello ünïcødé ✓" },
      created_at: "2025-01-01T00:00:01.000Z",
    },
    {
      ...base,
      id: "m-file",
      role: "user",
      body: {
        message_type: "file_reference",
        path: "src/a.ts",
        range: { start_line: 2, end_line: 4 },
        display_text: "@a.ts:2-4",
        resolved: {
          content: "b\nc\nd",
          start_line: 2,
          end_line: 4,
          total_lines: 10,
          truncated: false,
        },
      },
      created_at: "2025-01-01T00:00:02.000Z",
    },
    {
      ...base,
      id: "m-request",
      role: "assistant",
      body: {
        message_type: "tool_request",
        text: "Let me look.",
        thinking: [{ thinking: "need the file", signature: "sig-1" }],
        calls: [
          {
            id: "call-1",
            name: "read_file",
            arguments: { path: "src/a.ts", nested: { deep: [1, 2, { x: null }] } },
            approval: "pending",
          },
          {
            id: "call-2",
            name: "screenshot",
            arguments: {},
            approval: "denied",
            approval_note: "user",
          },
        ],
      },
      created_at: "2025-01-01T00:00:03.000Z",
      completed_at: "2025-01-01T00:00:03.500Z",
      meta: {
        model: "claude-x",
        provider: "anthropic",
        usage: { input: 100, output: 20, cacheRead: 5, cacheWrite: 1, totalTokens: 126 },
        cost_usd: 0.00060525,
        stop_reason: "toolUse",
        loop_id: "loop-1",
      },
    },
    {
      ...base,
      id: "m-result",
      role: "tool",
      body: {
        message_type: "tool_result",
        request_id: "m-request",
        tool_call_id: "call-1",
        tool_name: "read_file",
        content: [
          { type: "text", text: "file body" },
          { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        ],
        status: "success",
        details: { bytes: 9, lines: [1, 2] },
      },
      created_at: "2025-01-01T00:00:04.000Z",
    },
    {
      ...base,
      id: "m-mcp",
      role: "tool",
      body: {
        message_type: "mcp_resource",
        server_name: "docs",
        resource_uri: "docs://readme",
        content: "# Readme",
        mime_type: "text/markdown",
        retrieved_at: "2025-01-01T00:00:05.000Z",
      },
      created_at: "2025-01-01T00:00:05.000Z",
    },
    {
      ...base,
      id: "m-attachment",
      role: "user",
      body: {
        message_type: "attachment",
        name: "dot.png",
        mime_type: "image/png",
        size: 3,
        content: [{ type: "image", data: "AAEC", mimeType: "image/png" }],
      },
      created_at: "2025-01-01T00:00:05.500Z",
    },
    {
      ...base,
      id: "m-system",
      role: "system",
      body: {
        message_type: "system_control",
        kind: "summary",
        text: "earlier: the user asked about a.ts",
        replaces: ["m-text", "m-file"],
        data: { tokens_before: 1000 },
      },
      created_at: "2025-01-01T00:00:06.000Z",
    },
    {
      ...base,
      id: "m-plan",
      role: "assistant",
      body: {
        message_type: "plan",
        summary: "two steps",
        steps: [{ title: "read", detail: "read a.ts" }, { title: "edit" }],
        tool_call_id: "call-plan",
      },
      created_at: "2025-01-01T00:00:07.000Z",
      meta: {
        model: "claude-x",
        usage: { input: 50, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 60 },
      },
    },
    {
      ...base,
      id: "m-question",
      role: "assistant",
      status: "incomplete",
      body: {
        message_type: "question",
        question: "Which file?",
        choices: ["a.ts", "b.ts"],
        allow_free_text: false,
        tool_call_id: "call-q",
      },
      created_at: "2025-01-01T00:00:08.000Z",
      meta: { error_message: "cut off" },
    },
  ];
  const covered = new Set<MessageType>(messages.map((m) => m.body.message_type));
  for (const type of Object.keys(ALL_MESSAGE_TYPES)) {
    if (!covered.has(type as MessageType)) throw new Error(`everyMessageType lacks ${type}`);
  }
  return messages;
}
