import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { echoTool, loopConfig } from "../../test/support/agent-fixtures.js";
import { userMessage } from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { defineTool } from "../tools/tool.js";
import type { AgentEventSink } from "./event-sink.js";
import { runAgentLoop } from "./loop.js";
import type { AgentEvent } from "./types.js";

// The loop awaits its sink (event-sink.ts): a sink that returns a promise is never handed the
// next event, nor does the loop take its next step, before that promise has resolved.

/** A sink that takes a while per event (a write) and records what happened when. */
function slowSink(log: string[]): AgentEventSink & { events: AgentEvent[]; busy: number } {
  const sink = {
    events: [] as AgentEvent[],
    busy: 0,
    async push(event: AgentEvent): Promise<void> {
      if (sink.busy > 0) log.push(`OVERLAP ${event.type}`);
      sink.busy++;
      sink.events.push(event);
      log.push(`push ${event.type}`);
      await sleep(1);
      log.push(`stored ${event.type}`);
      sink.busy--;
    },
  };
  return sink;
}

const probeTool = (log: string[]) =>
  defineTool({
    name: "probe",
    label: "Probe",
    description: "Records when it runs.",
    parameters: z.object({}),
    execute: async () => {
      log.push("tool runs");
      return { content: [{ type: "text", text: "ok" }] };
    },
  });

describe("the loop awaits its sink", () => {
  it("hands each event over only after the previous one is stored, across deltas, tools and turns", async () => {
    const log: string[] = [];
    const provider = new ScriptedProvider([
      { blocks: [{ type: "toolCall", id: "c1", name: "probe", arguments: {} }] },
      { blocks: [{ type: "text", text: "all done here" }], chunkSize: 3 },
    ]);
    const sink = slowSink(log);
    const context = {
      systemPrompt: "",
      messages: [],
      tools: [probeTool(log), echoTool],
    };
    await runAgentLoop([userMessage("go", 1)], context, loopConfig(provider), sink);
    expect(log.filter((line) => line.startsWith("OVERLAP"))).toEqual([]);
    // every push is followed by its own "stored" before anything else happens
    for (let i = 0; i < log.length; i++) {
      const line = log[i] as string;
      if (line.startsWith("push ")) expect(log[i + 1]).toBe(`stored ${line.slice(5)}`);
    }
    // the tool runs only once the events before it (toolExecutionStart) are stored
    const ran = log.indexOf("tool runs");
    expect(log[ran - 1]).toBe("stored toolExecutionStart");
    const updates = sink.events.filter(
      (e) => e.type === "messageUpdate" && e.delta.type === "text",
    );
    expect(updates.length).toBe(5);
    expect(sink.events.at(-1)?.type).toBe("agentEnd");
  });

  it("a sink that returns nothing gets the same events in the same order", async () => {
    const script = () =>
      new ScriptedProvider([
        { blocks: [{ type: "toolCall", id: "c1", name: "echo", arguments: { text: "x" } }] },
        { blocks: [{ type: "text", text: "answer text" }], chunkSize: 2 },
      ]);
    const syncEvents: AgentEvent[] = [];
    const asyncEvents: AgentEvent[] = [];
    const ctx = () => ({ systemPrompt: "", messages: [], tools: [echoTool], sessionId: "s" });
    await runAgentLoop([userMessage("go", 1)], ctx(), loopConfig(script()), {
      push: (event) => {
        syncEvents.push(event);
      },
    });
    await runAgentLoop([userMessage("go", 1)], ctx(), loopConfig(script()), {
      push: async (event) => {
        asyncEvents.push(event);
        await sleep(0);
      },
    });
    expect(asyncEvents.map((e) => e.type)).toEqual(syncEvents.map((e) => e.type));
  });

  it("a tool's updates are stored before its toolExecutionEnd", async () => {
    const log: string[] = [];
    const chatty = defineTool({
      name: "chatty",
      label: "Chatty",
      description: "Reports progress.",
      parameters: z.object({}),
      execute: async (_args, { onUpdate, onProgress }) => {
        onUpdate?.({ content: [{ type: "text", text: "half" }] });
        onProgress?.("nearly");
        return { content: [{ type: "text", text: "done" }] };
      },
    });
    const provider = new ScriptedProvider([
      { blocks: [{ type: "toolCall", id: "c1", name: "chatty", arguments: {} }] },
      { blocks: [{ type: "text", text: "ok" }] },
    ]);
    const sink = slowSink(log);
    const context = { systemPrompt: "", messages: [], tools: [chatty] };
    await runAgentLoop([userMessage("go", 1)], context, loopConfig(provider), sink);
    expect(log.filter((line) => line.startsWith("OVERLAP"))).toEqual([]);
    const end = log.indexOf("push toolExecutionEnd");
    expect(log.indexOf("stored toolExecutionUpdate")).toBeLessThan(end);
    expect(log.indexOf("stored progressMessage")).toBeLessThan(end);
  });
});
