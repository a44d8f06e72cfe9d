import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TokenEfficientEvaluation } from "../agent/evaluation.js";
import { agentLoop, agentLoopContinue } from "../agent/loop.js";
import { agentLoopParallel } from "../agent/parallel.js";
import type { AgentContext, AgentEvent, AgentLoopConfig } from "../agent/types.js";
import { modelConfig } from "../model/llm-config.js";
import { userMessage } from "../model/llm-messages.js";
import type { SessionLoopTree } from "../model/loop-records.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { defineTool } from "../tools/tool.js";
import { LoopRecorder } from "./recorder.js";
import { childrenOf, getLoop, parallelSiblings, rootLoops, totalUsage } from "./session-tree.js";
import { InMemoryLoopRecordSink } from "./sink.js";

// The recorder fed by the real agent loop (not hand-built events): a two-turn run with a tool,
// a continuation, and a sub-agent tool that runs a child loop in its own session.

const model = modelConfig({ protocol: "anthropic-messages", model: "claude-test" });

async function drain(stream: AsyncIterable<AgentEvent>, recorder: LoopRecorder): Promise<void> {
  for await (const event of stream) recorder.onEvent(event);
}

describe("LoopRecorder on a real agent loop", () => {
  it("records a tool-using run, its continuation and a sub-agent session", async () => {
    const sink = new InMemoryLoopRecordSink();
    const recorder = new LoopRecorder({ sink });
    const parentContext: AgentContext = {
      systemPrompt: "test",
      messages: [],
      tools: [],
      sessionId: "sess-parent",
      agentId: "agent-parent",
    };

    // The sub-agent tool runs a child loop in a fresh session, naming the parent loop.
    const delegate = defineTool({
      name: "delegate",
      label: "Delegate",
      description: "Run a sub-agent",
      parameters: z.object({ task: z.string() }),
      async execute({ task }) {
        const childContext: AgentContext = {
          systemPrompt: "child",
          messages: [],
          tools: [],
          sessionId: "sess-child",
          agentId: "agent-child",
          ...(parentContext.loopId ? { parentLoopId: parentContext.loopId } : {}),
        };
        const childConfig: AgentLoopConfig = {
          provider: new ScriptedProvider([{ blocks: [{ type: "text", text: `did ${task}` }] }]),
          model,
          firstTurnTrigger: "subAgent",
        };
        await drain(agentLoop([userMessage(task)], childContext, childConfig), recorder);
        // a periodic checkpoint between the child's end and the parent's toolExecutionEnd
        await recorder.flush();
        return {
          content: [{ type: "text" as const, text: `did ${task}` }],
          ...(childContext.loopId ? { childLoopId: childContext.loopId } : {}),
        };
      },
    });
    parentContext.tools = [delegate];

    const provider = new ScriptedProvider([
      { blocks: [{ type: "toolCall", id: "call_d", name: "delegate", arguments: { task: "x" } }] },
      { blocks: [{ type: "text", text: "all done" }] },
      { blocks: [{ type: "text", text: "continued" }] },
    ]);
    const config: AgentLoopConfig = { provider, model };
    await drain(agentLoop([userMessage("go")], parentContext, config), recorder);
    const firstLoopId = parentContext.loopId;
    if (!firstLoopId) throw new Error("the loop did not write back its id");

    parentContext.messages.push(userMessage("and then?"));
    parentContext.loopId = undefined;
    parentContext.parentLoopId = firstLoopId;
    parentContext.continuationKind = { type: "rerun", tag: "2025-01-01T00:00:00Z" };
    await drain(agentLoopContinue(parentContext, config), recorder);
    await recorder.flush();

    const parent = recorder.getSession("sess-parent");
    const child = recorder.getSession("sess-child");
    if (!parent || !child) throw new Error("missing session");

    expect(parent.loops).toHaveLength(2);
    const [first, second] = parent.loops;
    expect(first).toMatchObject({
      loopId: firstLoopId,
      status: "completed",
      turns: 2,
      config: { model: "claude-test", provider: "mock", configId: "mock.claude-test" },
    });
    expect(second).toMatchObject({
      parentLoopId: firstLoopId,
      continuationKind: { type: "rerun", tag: "2025-01-01T00:00:00Z" },
      status: "completed",
    });
    expect(rootLoops(parent).map((l) => l.loopId)).toEqual([firstLoopId]);
    expect(childrenOf(parent, firstLoopId).map((l) => l.loopId)).toEqual([second?.loopId]);

    const childLoop = child.loops[0];
    expect(childLoop?.status).toBe("completed");
    expect(first?.childLoopIds).toEqual([childLoop?.loopId, second?.loopId]);
    expect(first?.childLoopRefs).toEqual([
      {
        toolCallId: "call_d",
        toolName: "delegate",
        childSessionId: "sess-child",
        childLoopId: childLoop?.loopId,
      },
    ]);
    expect(child.parentSpawnRef).toEqual({
      parentSessionId: "sess-parent",
      parentLoopId: firstLoopId,
      parentAgentId: "agent-parent",
      toolCallId: "call_d",
      toolName: "delegate",
    });
    expect(totalUsage(parent).totalTokens).toBeGreaterThan(0);
    // what a store would reload matches what the recorder holds
    expect(sink.sessions()).toEqual(recorder.sessions());
  });
});

describe("LoopRecorder on agentLoopParallel (REQ-213)", () => {
  it("marks each branch with its group, the chosen one selected, and the evaluation's usage", async () => {
    const recorder = new LoopRecorder();
    const branch = (text: string, output: number): AgentLoopConfig => ({
      provider: new ScriptedProvider([
        { blocks: [{ type: "text", text }], usage: { input: 5, output } },
      ]),
      model,
      contextConfig: null,
      executionLimits: null,
    });
    const stream = agentLoopParallel(
      [userMessage("which?")],
      { systemPrompt: "test", messages: [], tools: [], sessionId: "sess-par", agentId: "agent" },
      [branch("long answer", 40), branch("short", 2)],
      new TokenEfficientEvaluation(),
    );
    await drain(stream, recorder);
    const result = await stream.result();
    const session = recorder.getSession("sess-par");
    expect(session?.loops.map((l) => l.loopId)).toEqual(result.outcomes.map((o) => o.loopId));
    const [first, second] = result.outcomes.map((o) =>
      getLoop(session as SessionLoopTree, o.loopId),
    );
    expect(first?.parallelGroup).toEqual({
      groupId: result.groupId,
      loopIds: result.outcomes.map((o) => o.loopId),
      selectedLoopId: result.outcomes[1]?.loopId,
      selectedConfigIndex: 1,
      isSelected: false,
      evaluationUsage: result.evaluationUsage,
    });
    expect(second?.parallelGroup?.isSelected).toBe(true);
    expect(
      parallelSiblings(session as SessionLoopTree, first?.loopId ?? "").map((l) => l.loopId),
    ).toEqual([second?.loopId]);
  });
});
