import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/types.js";
import { createDefaultProviderRegistry } from "../../src/llm/registry.js";
import { type ApiProtocol, modelConfig } from "../../src/model/llm-config.js";
import type { AssistantMessage } from "../../src/model/llm-messages.js";
import { startFakeLlmServer } from "../../src/testing/fake-llm-server/index.js";
import type { FakeLlmServer } from "../../src/testing/fake-llm-server/types.js";
import { createDefaultTools } from "../../src/tools/builtin/default-tools.js";

// The "done when": an Agent runs over real HTTP against the fake server in the Anthropic
// and the OpenAI wire format — prompt → tool call → tool result → final answer — and we assert the
// exact event sequence, the usage, and the request bodies the server received.

let server: FakeLlmServer;
let workspace: string;

beforeAll(async () => {
  server = await startFakeLlmServer();
  workspace = await mkdtemp(join(tmpdir(), "arbor-http-"));
  await writeFile(join(workspace, "notes.txt"), "hello from the notes\nsecond line\n");
});

afterAll(async () => {
  await server.close();
  await rm(workspace, { recursive: true, force: true });
});

function script() {
  server.reset();
  server.enqueue(
    {
      blocks: [
        { type: "thinking", thinking: "I should read the notes.", signature: "sig-1" },
        { type: "text", text: "Let me read your notes." },
        { type: "toolCall", id: "call_1", name: "read_file", arguments: { path: "notes.txt" } },
      ],
      usage: { input: 120, output: 30, cacheRead: 0, cacheWrite: 100 },
    },
    {
      blocks: [{ type: "text", text: "Your notes say: hello from the notes." }],
      usage: { input: 40, output: 12, cacheRead: 100, cacheWrite: 0 },
    },
  );
}

/** The event types in order, with runs of messageUpdate folded into one entry. */
function shape(events: AgentEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    let label: string = e.type;
    if (e.type === "messageStart" || e.type === "messageEnd") label += `:${e.message.role}`;
    if (e.type === "toolExecutionStart" || e.type === "toolExecutionEnd") label += `:${e.toolName}`;
    if (label === "messageUpdate" && out.at(-1) === "messageUpdate*") continue;
    out.push(label === "messageUpdate" ? "messageUpdate*" : label);
  }
  return out;
}

const EXPECTED_SEQUENCE = [
  "agentStart",
  "turnStart",
  "messageStart:user",
  "messageEnd:user",
  "messageStart:assistant",
  "messageUpdate*",
  "messageEnd:assistant",
  "toolExecutionStart:read_file",
  "toolExecutionEnd:read_file",
  "messageStart:toolResult",
  "messageEnd:toolResult",
  "turnEnd",
  "turnStart",
  "messageStart:assistant",
  "messageUpdate*",
  "messageEnd:assistant",
  "turnEnd",
  "agentEnd",
];

async function runAgent(protocol: ApiProtocol, baseUrl: string) {
  script();
  const agent = new Agent({
    provider: createDefaultProviderRegistry(),
    model: modelConfig({
      protocol,
      model: protocol === "anthropic-messages" ? "claude-test" : "gpt-test",
      baseUrl,
      apiKey: "test-key",
      supportsReasoningEffort: true,
    }),
    systemPrompt: "You are Arbor's test agent.",
    tools: createDefaultTools({ workspaceRoot: workspace }),
    thinkingLevel: "medium",
    maxTokens: 1024,
    retryConfig: { maxRetries: 0, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 1 },
  });
  const events: AgentEvent[] = [];
  for await (const event of agent.prompt("What do my notes say?")) events.push(event);
  return { agent, events };
}

function assistants(events: AgentEvent[]): AssistantMessage[] {
  return events.flatMap((e) =>
    e.type === "messageEnd" && e.message.role === "assistant" ? [e.message] : [],
  );
}

describe("Agent over HTTP against the fake LLM server", () => {
  it("Anthropic Messages wire format: prompt → tool call → tool result → answer", async () => {
    const { agent, events } = await runAgent("anthropic-messages", server.url);
    expect(shape(events)).toEqual(EXPECTED_SEQUENCE);

    const [first, second] = assistants(events);
    expect(first?.stopReason).toBe("toolUse");
    expect(first?.content.map((c) => c.type)).toEqual(["thinking", "text", "toolCall"]);
    expect(first?.usage).toMatchObject({ input: 120, output: 30, cacheRead: 0, cacheWrite: 100 });
    expect(second?.stopReason).toBe("stop");
    expect(second?.usage).toMatchObject({ input: 40, output: 12, cacheRead: 100, cacheWrite: 0 });

    const toolEnd = events.find((e) => e.type === "toolExecutionEnd");
    expect(toolEnd?.type === "toolExecutionEnd" && toolEnd.isError).toBe(false);
    const end = events.at(-1);
    expect(end?.type === "agentEnd" && end.usage.cacheRead).toBe(100);
    expect(end?.type === "agentEnd" && end.usage.output).toBe(42);
    expect(agent.messages).toHaveLength(4);

    const [req1, req2] = server.requests.filter((r) => r.protocol === "anthropic-messages");
    expect(req1?.path).toBe("/v1/messages");
    expect(req1?.headers["x-api-key"]).toBe("test-key");
    const body1 = req1?.body as Record<string, unknown>;
    expect(body1.stream).toBe(true);
    expect(body1.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    const tools = body1.tools as Array<Record<string, unknown>>;
    expect(tools.map((t) => t.name)).toEqual([
      "bash",
      "read_file",
      "write_file",
      "edit_file",
      "list_files",
      "search",
    ]);
    expect(tools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(JSON.stringify(body1.system)).toContain('"cache_control":{"type":"ephemeral"}');

    // The second request replays the thinking signature and carries the tool result.
    const body2 = req2?.body as { messages: Array<{ role: string; content: unknown }> };
    expect(body2.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const replay = JSON.stringify(body2.messages[1]?.content);
    expect(replay).toContain('"signature":"sig-1"');
    const result = JSON.stringify(body2.messages[2]?.content);
    expect(result).toContain('"tool_use_id":"call_1"');
    expect(result).toContain("hello from the notes");
    // Auto caching marks the second-to-last message.
    expect(JSON.stringify(body2.messages[1])).toContain("cache_control");
  });

  it("OpenAI Chat Completions wire format: prompt → tool call → tool result → answer", async () => {
    const { events } = await runAgent("openai-chat", `${server.url}/v1`);
    expect(shape(events)).toEqual(EXPECTED_SEQUENCE);

    const [first, second] = assistants(events);
    expect(first?.stopReason).toBe("toolUse");
    expect(first?.content.map((c) => c.type)).toEqual(["thinking", "text", "toolCall"]);
    // OpenAI reports cached tokens inside prompt_tokens; the adapter splits them out.
    expect(first?.usage.output).toBe(30);
    expect(second?.usage.cacheRead).toBe(100);
    expect(second?.stopReason).toBe("stop");

    const [req1, req2] = server.requests.filter((r) => r.protocol === "openai-chat");
    expect(req1?.path).toBe("/v1/chat/completions");
    expect(req1?.headers.authorization).toBe("Bearer test-key");
    const body1 = req1?.body as Record<string, unknown>;
    expect(body1.stream).toBe(true);
    expect(body1.stream_options).toEqual({ include_usage: true });
    expect(body1.reasoning_effort).toBe("medium");
    const tools = body1.tools as Array<{ type: string; function: { name: string } }>;
    expect(tools.map((t) => t.function.name)).toContain("read_file");
    expect(tools.every((t) => t.type === "function")).toBe(true);
    const messages1 = body1.messages as Array<{ role: string }>;
    expect(messages1.map((m) => m.role)).toEqual(["system", "user"]);

    const body2 = req2?.body as { messages: Array<Record<string, unknown>> };
    expect(body2.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    const call = (body2.messages[2]?.tool_calls as Array<{ id: string }> | undefined)?.[0];
    expect(call?.id).toBe("call_1");
    expect(body2.messages[3]?.tool_call_id).toBe("call_1");
    expect(String(body2.messages[3]?.content)).toContain("hello from the notes");
  });
});
