import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { echoTool, loopConfig, testModel } from "../../test/support/agent-fixtures.js";
import { registerTestTelemetry, type TestTelemetry } from "../../test/support/telemetry-sdk.js";
import { LlmJudgeEvaluation } from "../agent/judge.js";
import { runAgentLoop } from "../agent/loop.js";
import { runAgentLoopParallel } from "../agent/parallel.js";
import type { AgentLoopConfig, ToolCallVerdict } from "../agent/types.js";
import { FoldRuntime } from "../folding/fold-runtime.js";
import type { StreamRequest } from "../llm/provider.js";
import { type AgentMessage, messageText, userMessage } from "../model/llm-messages.js";
import { SubAgentTool } from "../subagents/sub-agent-tool.js";
import type { ScriptedTurn } from "../testing/script.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { secretsFromEnv } from "../tools/secrets.js";
import { CAPTURE_CONTENT_VARIABLE, setTelemetrySecrets } from "./content.js";
import { CONTENT_ATTRIBUTES, TELEMETRY_NAMES } from "./names.js";

// The whole loop tree as spans, on a real SDK (in-memory exporter): a run with a tool call a
// person approved, a sub-agent and a fold; an ask-N-ways group with its judge. Message content
// stays out unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, and a planted secret
// never reaches an attribute even then.

const A = TELEMETRY_NAMES.attributes;
const SECRET = "sk-planted-telemetry-7Hq2xV9";
const ANA = { id: "u-ana", name: "Ana" };

let otel: TestTelemetry;
beforeAll(() => {
  otel = registerTestTelemetry();
  // the tool layer's own source of secrets: a variable whose name says it is secret
  setTelemetrySecrets(() => secretsFromEnv({ PLANTED_API_KEY: SECRET }));
});
afterEach(() => {
  otel.reset();
  delete process.env[CAPTURE_CONTENT_VARIABLE];
});

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  blocks: [{ type: "toolCall", name, arguments: args }],
  usage: { input: 100, output: 10, cacheRead: 50, cacheWrite: 5 },
});
const say = (text: string): ScriptedTurn => ({
  blocks: [{ type: "text", text }],
  usage: { input: 120, output: 20 },
});
const firstUser = (r: StreamRequest) =>
  messageText((r.messages[0] ?? userMessage("")) as AgentMessage);
const results = (r: StreamRequest) => r.messages.filter((m) => m.role === "toolResult").length;

/** The parent: echo (approved by Ana), then the sub-agent, then a fold, then the answer. */
function parentScript(r: StreamRequest): ScriptedTurn {
  if (firstUser(r).includes("FOLD-PROMPT")) {
    return results(r) === 0
      ? call("echo", { text: "fold step" })
      : call("return", { message: "X is 42" });
  }
  switch (results(r)) {
    case 0:
      return call("echo", { text: `key ${SECRET}` });
    case 1:
      return call("researcher", { task: "find X" });
    case 2:
      return call("branch", { description: "look up X", prompt: "FOLD-PROMPT find X" });
    default:
      return say(`done; the key was ${SECRET}`);
  }
}

async function runScenario(): Promise<void> {
  const provider = new ScriptedProvider((view) => parentScript(view.body as StreamRequest));
  const child = new ScriptedProvider([say("the researcher found X")]);
  const researcher = new SubAgentTool({
    name: "researcher",
    description: "Researches.",
    provider: child,
    model: testModel,
    sessionId: "s-otel",
    agentId: "arbor",
  });
  // the session's gate answers from stored approvals: echo approved by Ana, the rest by policy
  const gate = (calls: readonly { id: string; name: string }[]): ToolCallVerdict[] =>
    calls.map((c) =>
      c.name === "echo"
        ? { toolCallId: c.id, verdict: "run", decidedBy: ANA }
        : { toolCallId: c.id, verdict: "run", rule: "policy auto_approve_all" },
    );
  const config: AgentLoopConfig = loopConfig(provider, { approveToolCalls: gate });
  const folds = new FoldRuntime({
    sessionId: "s-otel",
    systemPrompt: "SYSTEM",
    tools: [echoTool],
    loopConfig: config,
    scrub: (t) => t,
  });
  await runAgentLoop(
    [userMessage(`please use ${SECRET}`)],
    {
      systemPrompt: "SYSTEM",
      messages: [],
      tools: [echoTool, researcher, folds.branchTool()],
      agentId: "arbor",
      sessionId: "s-otel",
      startedBy: ANA,
    },
    config,
    { push: () => undefined },
  );

  // ask N ways: two candidates, a judge that picks the second
  const candidate = (text: string) => loopConfig(new ScriptedProvider([say(text)]));
  const judge = new LlmJudgeEvaluation({
    judgeConfig: loopConfig(new ScriptedProvider([say("2, it is clearer")])),
  });
  await runAgentLoopParallel(
    [userMessage("which is better?")],
    { systemPrompt: "SYSTEM", messages: [], tools: [], agentId: "arbor", sessionId: "s-otel" },
    [candidate("answer one"), candidate("answer two")],
    judge,
    { push: () => undefined },
  );
}

function byName(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((s) => s.name === name);
}
function one(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
}
function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
function attributeText(spans: ReadableSpan[]): string {
  return JSON.stringify(spans.map((s) => [s.attributes, s.events.map((e) => e.attributes)]));
}

describe("the loop tree as OpenTelemetry spans", () => {
  it("nests the run, its model requests, tool calls, the sub-agent and the fold in one trace", async () => {
    await runScenario();
    const spans = otel.spans();
    const root = byName(spans, "invoke_agent arbor").find(
      (s) => s.attributes[A.loopKind] === "run",
    );
    expect(root).toBeDefined();
    const run = root as ReadableSpan;
    expect(parentOf(run)).toBeUndefined();
    expect(run.attributes).toMatchObject({
      [A.operationName]: "invoke_agent",
      [A.agentName]: "arbor",
      [A.agentId]: "arbor",
      [A.conversationId]: "s-otel",
      [A.providerName]: "mock",
      [A.requestModel]: "scripted-model",
      [A.startedById]: "u-ana",
      [A.loopStatus]: "completed",
      [A.loopTurns]: 4,
    });
    expect(String(run.attributes[A.loopId])).toMatch(/^s-otel\./);
    const trace = run.spanContext().traceId;

    // four model requests of the run itself, children of its span
    const chats = byName(spans, "chat scripted-model").filter(
      (s) => parentOf(s) === run.spanContext().spanId,
    );
    expect(chats).toHaveLength(4);
    expect(chats[0]?.attributes).toMatchObject({
      [A.operationName]: "chat",
      [A.providerName]: "mock",
      [A.requestModel]: "scripted-model",
      [A.responseModel]: "scripted-model",
      [A.usageInputTokens]: 155,
      [A.usageOutputTokens]: 10,
      [A.usageCacheReadInputTokens]: 50,
      [A.usageCacheCreationInputTokens]: 5,
      [A.responseFinishReasons]: ["tool_call"],
    });
    expect(chats[0]?.attributes[A.responseTimeToFirstChunk]).toBeTypeOf("number");

    // the tool calls: who decided each
    const echo = byName(spans, "execute_tool echo").find(
      (s) => parentOf(s) === run.spanContext().spanId,
    );
    expect(echo?.attributes).toMatchObject({
      [A.operationName]: "execute_tool",
      [A.toolName]: "echo",
      [A.toolType]: "function",
      [A.approvalOutcome]: "approved",
      [A.approvalDeciderType]: "person",
      [A.approvalDeciderId]: "u-ana",
      [A.approvalDeciderName]: "Ana",
      [A.toolOutcome]: "approved",
    });
    expect(String(echo?.attributes[A.toolCallId])).not.toBe("");
    const researcherCall = one(spans, "execute_tool researcher");
    expect(parentOf(researcherCall)).toBe(run.spanContext().spanId);
    expect(researcherCall.attributes).toMatchObject({
      [A.approvalOutcome]: "auto",
      [A.approvalDeciderType]: "policy",
      [A.approvalRule]: "policy auto_approve_all",
    });

    // the sub-agent's loop is a child of the call that started it, with its own model request
    const subAgent = one(spans, "invoke_agent researcher");
    expect(parentOf(subAgent)).toBe(researcherCall.spanContext().spanId);
    expect(subAgent.attributes).toMatchObject({ [A.loopKind]: "sub_agent" });
    expect(subAgent.spanContext().traceId).toBe(trace);
    expect(researcherCall.attributes[A.childLoopId]).toBe(subAgent.attributes[A.loopId]);
    const subChat = spans.filter((s) => parentOf(s) === subAgent.spanContext().spanId);
    expect(subChat.map((s) => s.name)).toEqual(["chat scripted-model"]);

    // the fold: a child of the `branch` call, its own tool call inside it
    const branchCall = one(spans, "execute_tool branch");
    const fold = one(spans, "invoke_agent fold");
    expect(parentOf(fold)).toBe(branchCall.spanContext().spanId);
    expect(fold.attributes).toMatchObject({ [A.loopKind]: "fold" });
    const foldChildren = spans.filter((s) => parentOf(s) === fold.spanContext().spanId);
    expect(foldChildren.map((s) => s.name)).toContain("execute_tool echo");
    expect(foldChildren.map((s) => s.name)).toContain("execute_tool return");
    for (const span of [echo, researcherCall, subAgent, branchCall, fold, ...chats]) {
      expect(span?.spanContext().traceId).toBe(trace);
    }
  });

  it("puts ask-N-ways candidates and the judge under the group; the judge links to the candidates", async () => {
    await runScenario();
    const spans = otel.spans();
    const group = one(spans, "invoke_workflow ask_n_ways");
    expect(group.attributes).toMatchObject({
      [A.operationName]: "invoke_workflow",
      [A.workflowName]: "ask_n_ways",
      [A.conversationId]: "s-otel",
      [A.parallelCandidates]: 2,
    });
    const candidates = spans.filter((s) => s.attributes[A.loopKind] === "candidate");
    expect(candidates).toHaveLength(2);
    for (const c of candidates) expect(parentOf(c)).toBe(group.spanContext().spanId);
    const judge = one(spans, "invoke_agent llm_judge");
    expect(parentOf(judge)).toBe(group.spanContext().spanId);
    expect(judge.attributes[A.loopKind]).toBe("judge");
    expect(judge.links.map((l) => l.context.spanId).sort()).toEqual(
      candidates.map((c) => c.spanContext().spanId).sort(),
    );
    expect(group.attributes[A.parallelSelectedLoopId]).toBe(candidates[1]?.attributes[A.loopId]);
  });

  it("records no message content unless the variable is set", async () => {
    await runScenario();
    const spans = otel.spans();
    expect(spans.length).toBeGreaterThan(10);
    for (const span of spans) {
      for (const key of CONTENT_ATTRIBUTES)
        expect(span.attributes[key], `${span.name} ${key}`).toBeUndefined();
    }
    expect(attributeText(spans)).not.toContain("find X");
  });

  it("records content with the variable set, and never a planted secret", async () => {
    process.env[CAPTURE_CONTENT_VARIABLE] = "true";
    await runScenario();
    const spans = otel.spans();
    const text = attributeText(spans);
    expect(text).not.toContain(SECRET);
    expect(text).toContain("[redacted]");
    const echo = byName(spans, "execute_tool echo")[0] as ReadableSpan;
    expect(JSON.parse(String(echo.attributes[A.toolCallArguments]))).toEqual({
      text: "key [redacted]",
    });
    expect(String(echo.attributes[A.toolCallResult])).toBe("key [redacted]");
    const firstChat = byName(spans, "chat scripted-model")[0] as ReadableSpan;
    const input = JSON.parse(String(firstChat.attributes[A.inputMessages]));
    expect(input[0]).toEqual({
      role: "user",
      parts: [{ type: "text", content: "please use [redacted]" }],
    });
    expect(JSON.parse(String(firstChat.attributes[A.systemInstructions]))).toEqual([
      { type: "text", content: "SYSTEM" },
    ]);
    const last = byName(spans, "chat scripted-model").find((s) =>
      String(s.attributes[A.outputMessages]).includes("done; the key was"),
    );
    expect(JSON.parse(String(last?.attributes[A.outputMessages]))).toEqual([
      {
        role: "assistant",
        parts: [{ type: "text", content: "done; the key was [redacted]" }],
        finish_reason: "stop",
      },
    ]);
  });

  it("measures token usage, request durations, tool calls and active runs", async () => {
    await runScenario();
    const tokens = await otel.points(TELEMETRY_NAMES.metrics.tokenUsage);
    const input = tokens.find(
      (p) => p.attributes[A.tokenType] === "input" && p.attributes[A.providerName] === "mock",
    );
    expect(input?.attributes).toMatchObject({
      [A.operationName]: "chat",
      [A.requestModel]: "scripted-model",
    });
    expect(input).toBeDefined();
    expect((input?.value as { sum: number } | undefined)?.sum).toBeGreaterThan(0);
    const durations = await otel.points(TELEMETRY_NAMES.metrics.operationDuration);
    expect(durations.length).toBeGreaterThan(0);
    const toolCalls = await otel.points(TELEMETRY_NAMES.metrics.toolCalls);
    const approvedEcho = toolCalls.find(
      (p) => p.attributes[A.toolName] === "echo" && p.attributes[A.toolOutcome] === "approved",
    );
    expect(approvedEcho?.value).toBeGreaterThanOrEqual(1);
    const active = await otel.points(TELEMETRY_NAMES.metrics.activeRuns);
    // every loop that started has ended
    expect(active.reduce((sum, p) => sum + (p.value as number), 0)).toBe(0);
  });
});
