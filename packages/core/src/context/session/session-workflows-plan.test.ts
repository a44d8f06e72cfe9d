import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  errors,
  harness,
  say,
  stateData,
  states,
  tempWorkspace,
} from "../../../test/support/session-harness.js";
import { createDefaultTools } from "../../tools/builtin/default-tools.js";
import { PLAN_APPROVED_TEXT } from "./index.js";
import type { Session } from "./session.js";

// Workflow payloads (context-manager "Workflow payload") and plan mode (plan-act "State
// transitions respect mode", "Mode can be updated"), each with its exact state sequence.

const TO_ANSWER = [
  "PreparingLLMRequest",
  "ConnectingToLLM",
  "AwaitingLLMFirstChunk",
  "StreamingLLMResponse",
  "ProcessingLLMResponse",
];
/** a tool call streams as two chunks: the call's start and its arguments */
const TO_CALL = [
  ...TO_ANSWER.slice(0, 3),
  "StreamingLLMResponse",
  "StreamingLLMResponse",
  "ProcessingLLMResponse",
  "ParsingToolCalls",
];
/** plan mode never enters ParsingToolCalls (plan-act "State transitions respect mode") */
const TO_PLAN_CALL = TO_CALL.slice(0, -1);
const PIPELINE = ["ProcessingUserMessage", "EnhancingSystemPrompt", "OptimizingContext"];
/** the tool execution states plan mode never enters */
const EXECUTION_STATES = [
  "ParsingToolCalls",
  "ExecutingTool",
  "CollectingToolResults",
  "ProcessingToolResults",
  "ToolAutoLoop",
];
/** a workflow's call, approved, runs as the first round of a continued loop */
const WORKFLOW_RUN = [
  "ProcessingUserMessage",
  "ParsingToolCalls",
  "ExecutingTool",
  "CollectingToolResults",
  "ProcessingToolResults",
  "ToolAutoLoop",
];

/** a one-chunk answer, so each answer adds exactly one StreamingLLMResponse */
const answer = (text: string) => ({ ...say(text), chunkSize: 1_000 });

function kinds(session: Session): string[] {
  return session.messages().messages.map((m) => `${m.role}:${m.body.message_type}`);
}

function defaultTools(workspace: string) {
  return () => createDefaultTools({ workspaceRoot: workspace });
}

describe("Workflow payload", () => {
  it("a read_file workflow under auto_approve_all runs, its result becomes a ToolResult with its request, then the model continues", async () => {
    const workspace = tempWorkspace({ "notes.txt": "alpha\nbeta\n" });
    const h = harness([answer("The file says alpha and beta.")], {
      tools: defaultTools(workspace),
    });
    const session = await h.manager.create({
      config: { workspace, approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(
      session.sendMessage({
        type: "workflow",
        workflow: "read_file",
        parameters: { path: "notes.txt" },
        display_text: "Read notes.txt",
      }),
    );
    expect(errors(events)).toEqual([]);
    expect(states(events)).toEqual([...WORKFLOW_RUN, ...TO_ANSWER, "Idle"]);
    expect(kinds(session)).toEqual(["user:tool_request", "tool:tool_result", "assistant:text"]);
    const [request, result] = session.messages().messages;
    expect(request?.body).toMatchObject({
      message_type: "tool_request",
      text: "Read notes.txt",
      calls: [
        {
          name: "read_file",
          arguments: { path: "notes.txt" },
          approval: "auto_approved",
          approval_note: "policy auto_approve_all",
        },
      ],
    });
    expect(result?.body.message_type === "tool_result" && result.body.request_id).toBe(request?.id);
    expect(result?.body.message_type === "tool_result" && result.body.status).toBe("success");
    const resultText =
      result?.body.message_type === "tool_result" && result.body.content[0]?.type === "text"
        ? result.body.content[0].text
        : "";
    expect(resultText).toContain("alpha");
    // the model sees the call and its result, and answers from them
    const sent = h.provider.requests[0]!.messages;
    // (a note first: a request must begin with the user)
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(sent[2]?.role === "toolResult" && sent[2].toolName).toBe("read_file");
  });

  it("an unknown workflow is refused with an error event and nothing is stored", async () => {
    const h = harness([say("never")]);
    const session = await h.manager.create();
    const events = await collect(
      session.sendMessage({ type: "workflow", workflow: "launch_rockets", parameters: {} }),
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      name: "error",
      sequence: 0,
      payload: { code: "invalid_request" },
    });
    expect(errors(events)[0]?.message).toContain('unknown workflow "launch_rockets"');
    expect(session.messages().messages).toEqual([]);
    expect(await h.store.readEvents(session.id, 0)).toEqual([]);
    expect(h.provider.requests).toHaveLength(0);
    expect(session.state).toEqual({ type: "Idle" });
  });
});

describe("Act mode: question handling", () => {
  it("ask_question is offered in act mode and works as in plan mode: a Question message, AwaitingUserAnswer, then the answer continues the loop", async () => {
    const h = harness([
      call(
        "ask_question",
        { question: "Overwrite or append?", choices: ["overwrite", "append"] },
        "q1",
      ),
      answer("Appending."),
    ]);
    // the default policy holds unlisted tools; ask_question is never held
    const session = await h.manager.create({ config: { agent_mode: "act" } });
    const asked = await collect(session.sendMessage({ type: "text", text: "update the notes" }));
    expect(errors(asked)).toEqual([]);
    expect(h.provider.requests[0]!.tools.map((t) => t.name)).toContain("ask_question");
    expect(h.provider.requests[0]!.tools.map((t) => t.name)).not.toContain("present_plan");
    expect(states(asked)).toEqual([...PIPELINE, ...TO_CALL, "AwaitingUserAnswer"]);
    const question = session.messages().messages.at(-1)!;
    expect(question.body).toMatchObject({ message_type: "question", tool_call_id: "q1" });
    expect(session.state).toEqual({ type: "AwaitingUserAnswer", question_message_id: question.id });
    const answered = await collect(session.sendMessage({ type: "text", text: "append" }));
    expect(states(answered)).toEqual([...PIPELINE, ...TO_ANSWER, "Idle"]);
    expect(session.config.agent_mode).toBe("act");
    expect(kinds(session)).toEqual([
      "user:text",
      "assistant:tool_request",
      "assistant:question",
      "user:text",
      "assistant:text",
    ]);
  });
  it("a round with a tool call beside ask_question runs the tool, then waits for the answer", async () => {
    const h = harness([
      {
        blocks: [
          { type: "toolCall", id: "e1", name: "echo", arguments: { text: "x" } },
          { type: "toolCall", id: "q1", name: "ask_question", arguments: { question: "Which?" } },
        ],
      },
      answer("Done."),
    ]);
    const session = await h.manager.create({
      config: { agent_mode: "act", approval_policy: { type: "auto_approve_all" } },
    });
    const asked = await collect(session.sendMessage({ type: "text", text: "go" }));
    expect(errors(asked)).toEqual([]);
    expect(states(asked).slice(-3)).toEqual([
      "ExecutingTool",
      "CollectingToolResults",
      "AwaitingUserAnswer",
    ]);
    expect(kinds(session)).toEqual([
      "user:text",
      "assistant:tool_request",
      "tool:tool_result",
      "assistant:question",
    ]);
    const answered = await collect(session.sendMessage({ type: "text", text: "that one" }));
    expect(errors(answered)).toEqual([]);
    expect(session.state).toEqual({ type: "Idle" });
  });
});

describe("Plan mode", () => {
  it("ask_question: a Question message and AwaitingUserAnswer; the next message answers it and the loop continues", async () => {
    const h = harness([
      call("ask_question", { question: "Which file?", choices: ["a.ts", "b.ts"] }, "q1"),
      answer("Planning around a.ts."),
    ]);
    const session = await h.manager.create({ config: { agent_mode: "plan" } });
    const asked = await collect(session.sendMessage({ type: "text", text: "plan a change" }));
    expect(states(asked)).toEqual([...PIPELINE, ...TO_PLAN_CALL, "AwaitingUserAnswer"]);
    const question = session.messages().messages.at(-1)!;
    expect(question.body).toMatchObject({
      message_type: "question",
      question: "Which file?",
      choices: ["a.ts", "b.ts"],
      tool_call_id: "q1",
    });
    expect(session.state).toEqual({ type: "AwaitingUserAnswer", question_message_id: question.id });
    const answered = await collect(session.sendMessage({ type: "text", text: "a.ts" }));
    expect(states(answered)).toEqual([...PIPELINE, ...TO_ANSWER, "Idle"]);
    expect(kinds(session)).toEqual([
      "user:text",
      "assistant:tool_request",
      "assistant:question",
      "user:text",
      "assistant:text",
    ]);
    // the model gets its question answered as the call's result, then the user's answer
    const sent = h.provider.requests[1]!.messages;
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(sent[2]?.role === "toolResult" && sent[2].toolCallId).toBe("q1");
  });

  it("present_plan → Plan message → approvePlan → Act mode, continuing from the plan", async () => {
    const h = harness([
      call("present_plan", { summary: "Echo it", steps: [{ title: "Echo" }] }, "p1"),
      call("echo", { text: "done" }, "e1"),
      answer("Carried out."),
    ]);
    const session = await h.manager.create({
      config: { agent_mode: "plan", approval_policy: { type: "auto_approve_all" } },
    });
    const planned = await collect(session.sendMessage({ type: "text", text: "plan it" }));
    expect(states(planned)).toEqual([...PIPELINE, ...TO_PLAN_CALL, "ParsingPlan", "Idle"]);
    const plan = session.messages().messages.at(-1)!;
    expect(plan.body).toMatchObject({ message_type: "plan", summary: "Echo it" });
    const approved = await collect(session.approvePlan(plan.id));
    expect(states(approved)).toEqual([
      ...PIPELINE,
      ...TO_CALL,
      "ExecutingTool",
      "CollectingToolResults",
      "ProcessingToolResults",
      "ToolAutoLoop",
      ...TO_ANSWER,
      "Idle",
    ]);
    expect(session.config.agent_mode).toBe("act");
    const stored = await h.store.loadSession(session.id);
    expect(stored?.session.config.agent_mode).toBe("act");
    expect(kinds(session).slice(2)).toEqual([
      "assistant:plan",
      "system:system_control",
      "user:text",
      "assistant:tool_request",
      "tool:tool_result",
      "assistant:text",
    ]);
    // the act request continues from the plan: the plan is in its history, the tools are act's
    const request = h.provider.requests[1]!;
    expect(request.tools.map((t) => t.name)).toEqual([
      "echo",
      "write_note",
      "explode",
      "ask_question",
    ]);
    expect(request.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
    ]);
    const last = request.messages.at(-1);
    expect(last?.role === "user" && last.content[0]?.type === "text" && last.content[0].text).toBe(
      PLAN_APPROVED_TEXT,
    );
  });

  it("plan mode never enters ExecutingTool for a write tool: write_file is not offered and not found", async () => {
    const workspace = tempWorkspace({ "a.txt": "one\n" });
    const h = harness(
      [
        call("write_file", { path: "a.txt", content: "changed" }, "w1"),
        answer("I cannot write in plan mode."),
      ],
      { tools: defaultTools(workspace) },
    );
    // manual approval: even so, nothing waits for a person
    const session = await h.manager.create({ config: { agent_mode: "plan", workspace } });
    const events = await collect(session.sendMessage({ type: "text", text: "change a.txt" }));
    expect(errors(events)).toEqual([]);
    expect(h.provider.requests[0]!.tools.map((t) => t.name)).toEqual([
      "read_file",
      "list_files",
      "search",
      "present_plan",
      "ask_question",
    ]);
    expect(states(events)).toEqual([
      ...PIPELINE,
      ...TO_PLAN_CALL,
      "ResearchingPlan",
      ...TO_ANSWER,
      "Idle",
    ]);
    expect(stateData(events).filter((s) => s.type === "ExecutingTool")).toEqual([]);
    expect(session.transitions.some((r) => r.to.type === "AwaitingToolApproval")).toBe(false);
    const result = h.provider.requests[1]!.messages.find((m) => m.role === "toolResult");
    expect(result?.role === "toolResult" && result.isError).toBe(true);
    expect(result?.role === "toolResult" && result.content[0]).toEqual({
      type: "text",
      text: "Tool write_file not found",
    });
    const request = session.messages().messages[1]!;
    expect(request.body.message_type === "tool_request" && request.body.calls[0]).toMatchObject({
      name: "write_file",
      approval: "denied",
      approval_note: "not offered in this mode",
    });
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(`${workspace}/a.txt`, "utf8")).toBe("one\n");
  });

  it("read-only tools while planning pass through ResearchingPlan, never the tool execution states (issue #26 9e)", async () => {
    const workspace = tempWorkspace({ "a.txt": "alpha\n", "b.txt": "beta\n" });
    const h = harness(
      [
        {
          blocks: [
            { type: "toolCall", id: "r1", name: "read_file", arguments: { path: "a.txt" } },
            { type: "toolCall", id: "r2", name: "read_file", arguments: { path: "b.txt" } },
          ],
        },
        call("present_plan", { summary: "Use both", steps: [{ title: "Join" }] }, "p1"),
      ],
      { tools: defaultTools(workspace) },
    );
    const session = await h.manager.create({
      config: { agent_mode: "plan", workspace, approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "plan it" }));
    expect(errors(events)).toEqual([]);
    const all = stateData(events);
    expect(all.filter((s) => EXECUTION_STATES.includes(s.type))).toEqual([]);
    expect(session.transitions.filter((r) => EXECUTION_STATES.includes(r.to.type))).toEqual([]);
    // two calls stream as four chunks
    const twoCalls = [
      ...TO_ANSWER.slice(0, 3),
      ...Array(4).fill("StreamingLLMResponse"),
      TO_ANSWER[4],
    ];
    expect(states(events)).toEqual([
      ...PIPELINE,
      ...twoCalls,
      "ResearchingPlan",
      "ResearchingPlan",
      ...TO_PLAN_CALL,
      "ParsingPlan",
      "Idle",
    ]);
    expect(all.filter((s) => s.type === "ResearchingPlan")).toEqual([
      { type: "ResearchingPlan", tool_names: ["read_file", "read_file"], tools_executed: 0 },
      { type: "ResearchingPlan", tool_names: ["read_file", "read_file"], tools_executed: 2 },
    ]);
    // the reads really ran: the model saw both files before it planned
    const sent = JSON.stringify(h.provider.requests[1]!.messages);
    expect(sent).toContain("alpha");
    expect(sent).toContain("beta");
    expect(kinds(session).slice(-4)).toEqual([
      "tool:tool_result",
      "tool:tool_result",
      "assistant:tool_request",
      "assistant:plan",
    ]);
  });

  it("by default a read-only call while planning runs without asking, noted with its rule (issue #27)", async () => {
    const workspace = tempWorkspace({ "a.txt": "alpha\n" });
    const h = harness([call("read_file", { path: "a.txt" }, "r1"), answer("Read it.")], {
      tools: defaultTools(workspace),
    });
    const session = await h.manager.create({ config: { agent_mode: "plan", workspace } });
    const asked = await collect(session.sendMessage({ type: "text", text: "plan it" }));
    expect(errors(asked)).toEqual([]);
    expect(states(asked).at(-1)).toBe("Idle");
    expect(states(asked)).not.toContain("AwaitingToolApproval");
    const request = session.messages().messages.find((m) => m.body.message_type === "tool_request");
    expect(request?.body).toMatchObject({
      calls: [{ id: "r1", approval: "auto_approved", approval_note: "rule approve_read_only" }],
    });
  });

  it("a read-only call held for a person while planning (approve_read_only off) waits in AwaitingToolApproval, then researches", async () => {
    const workspace = tempWorkspace({ "a.txt": "alpha\n" });
    const h = harness([call("read_file", { path: "a.txt" }, "r1"), answer("Read it.")], {
      tools: defaultTools(workspace),
    });
    const session = await h.manager.create({
      config: { agent_mode: "plan", workspace, approve_read_only: false },
    });
    const asked = await collect(session.sendMessage({ type: "text", text: "plan it" }));
    expect(states(asked)).toEqual([...PIPELINE, ...TO_PLAN_CALL, "AwaitingToolApproval"]);
    const decided = await collect(
      session.decideToolCalls([{ tool_call_id: "r1", decision: "approve" }]),
    );
    expect(errors(decided)).toEqual([]);
    expect(states(decided)).toEqual(["ResearchingPlan", "ResearchingPlan", ...TO_ANSWER, "Idle"]);
    expect(session.transitions.filter((r) => EXECUTION_STATES.includes(r.to.type))).toEqual([]);
  });
});
