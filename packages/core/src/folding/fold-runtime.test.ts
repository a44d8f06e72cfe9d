import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { echoTool, loopConfig } from "../../test/support/agent-fixtures.js";
import { runAgentLoop } from "../agent/loop.js";
import type { AgentLoopConfig } from "../agent/types.js";
import type { StreamRequest } from "../llm/provider.js";
import {
  type AgentMessage,
  type Message,
  messageText,
  userMessage,
} from "../model/llm-messages.js";
import type { ScriptedTurn, ScriptRequestView } from "../testing/script.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { defineTool, type ToolResult } from "../tools/tool.js";
import {
  type FoldEvent,
  type FoldHost,
  FoldRuntime,
  foldExtractiveSummary,
} from "./fold-runtime.js";
import { FoldMemoryFile } from "./memory.js";

function text(m: Message): string {
  return messageText(m as AgentMessage);
}
function requestOf(view: ScriptRequestView): StreamRequest {
  return view.body as StreamRequest;
}
function firstUser(req: StreamRequest): string {
  const first = req.messages[0];
  return first ? text(first) : "";
}
function toolResults(req: StreamRequest): number {
  return req.messages.filter((m) => m.role === "toolResult").length;
}
function all(req: StreamRequest): string {
  return req.messages.map(text).join("\n");
}
const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  blocks: [{ type: "toolCall", name, arguments: args }],
});
const say = (t: string): ScriptedTurn => ({ blocks: [{ type: "text", text: t }] });

/** A tool that runs until its signal is aborted. */
const waitTool = defineTool({
  name: "wait",
  label: "Wait",
  description: "Waits until cancelled.",
  parameters: z.object({}),
  execute: (_p, ctx) =>
    new Promise<ToolResult>((_resolve, reject) => {
      ctx.signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
    }),
});

function setup(
  script: (req: StreamRequest) => ScriptedTurn,
  extra: Partial<FoldHost> = {},
  loopExtra: Partial<AgentLoopConfig> = {},
): {
  runtime: FoldRuntime;
  provider: ScriptedProvider;
  events: FoldEvent[];
  run: (prompt: string, signal?: AbortSignal) => Promise<AgentMessage[]>;
} {
  const provider = new ScriptedProvider((view) => script(requestOf(view)));
  const events: FoldEvent[] = [];
  const tools = [echoTool, waitTool];
  const runtime = new FoldRuntime({
    sessionId: "s1",
    systemPrompt: "SYSTEM PROMPT",
    tools,
    loopConfig: loopConfig(provider, loopExtra),
    scrub: (t) => t.replaceAll("sk-planted-secret", "[REDACTED]"),
    onFoldEvent: (e) => events.push(e),
    ...extra,
  });
  const run = (prompt: string, signal?: AbortSignal) =>
    runAgentLoop(
      [userMessage(prompt)],
      { systemPrompt: "SYSTEM PROMPT", messages: [], tools: [...tools, runtime.branchTool()] },
      loopConfig(provider, loopExtra),
      { push: () => undefined },
      signal,
    );
  return { runtime, provider, events, run };
}

describe("FoldRuntime", () => {
  it("a fold sees its prompt, not the parent's conversation; the parent sees only the return", async () => {
    const { runtime, provider, events, run } = setup((req) => {
      if (firstUser(req).includes("PARENT-CONVERSATION")) {
        return toolResults(req) === 0
          ? call("branch", { description: "look up X", prompt: "FOLD-PROMPT find X" })
          : say("parent done");
      }
      if (toolResults(req) === 0) return call("echo", { text: "intermediate step data" });
      return call("return", { message: "X is 42, key sk-planted-secret" });
    });
    await run("PARENT-CONVERSATION: do the task");
    const foldRequests = provider.requests.filter((r) => firstUser(r).includes("FOLD-PROMPT"));
    expect(foldRequests.length).toBe(2);
    for (const r of foldRequests) {
      expect(all(r)).not.toContain("PARENT-CONVERSATION");
      expect(r.systemPrompt).toBe("SYSTEM PROMPT");
      expect(r.tools.map((t) => t.name)).toEqual(["echo", "wait", "branch", "return"]);
    }
    expect(firstUser(foldRequests[0] as StreamRequest)).toContain("look up X");
    const parentLast = provider.requests.at(-1) as StreamRequest;
    expect(firstUser(parentLast)).toContain("PARENT-CONVERSATION");
    expect(all(parentLast)).toContain("X is 42, key [REDACTED]");
    expect(all(parentLast)).not.toContain("intermediate step data");
    expect(all(parentLast)).not.toContain("sk-planted-secret");
    const [fold] = runtime.folds();
    expect(fold).toMatchObject({ status: "returned", depth: 1, result: "X is 42, key [REDACTED]" });
    expect(fold?.used).toBeGreaterThan(0);
    expect(fold?.steps.map(messageText).join("\n")).toContain("intermediate step data");
    expect(events.map((e) => e.name)).toEqual(["fold_started", "fold_returned"]);
    expect(events[1]?.payload).toMatchObject({
      forced: false,
      reason: null,
      tokens_used: fold?.used,
    });
    expect(runtime.openCount).toBe(0);
  });

  it("warns at 80% in the next request and forces a return with a partial result at 100%", async () => {
    let foldRequest = 0;
    const { runtime, provider, events, run } = setup((req) => {
      if (firstUser(req).includes("PARENT")) {
        return toolResults(req) === 0
          ? call("branch", { description: "scan", prompt: "FOLD scan", budget: 1000 })
          : say("ok");
      }
      foldRequest += 1;
      if (foldRequest === 1)
        return { ...call("echo", { text: "found file a.ts" }), usage: { input: 800, output: 50 } };
      return { ...call("echo", { text: "found file b.ts" }), usage: { input: 900, output: 50 } };
    });
    await run("PARENT task");
    const second = provider.requests.filter((r) => firstUser(r).includes("FOLD scan"))[1];
    expect(all(second as StreamRequest)).toMatch(/\d+ tokens left: finish and return/);
    const [fold] = runtime.folds();
    expect(fold).toMatchObject({ status: "forced", forcedReason: "budget", warned: true });
    expect(fold?.result).toContain("forced to return: budget");
    expect(fold?.result).toContain("found file a.ts");
    expect(events.map((e) => e.name)).toEqual([
      "fold_started",
      "fold_budget_warning",
      "fold_returned",
    ]);
    expect(events[2]?.payload).toMatchObject({ forced: true, reason: "budget" });
    const parentLast = provider.requests.at(-1) as StreamRequest;
    expect(all(parentLast)).toContain("Partial result");
  });

  it("allows depth 3 and refuses depth 4 with an error naming the depth", async () => {
    const { runtime, provider, run } = setup((req) => {
      const first = firstUser(req);
      if (first.includes("PARENT")) {
        return toolResults(req) === 0
          ? call("branch", { description: "level 1", prompt: "LEVEL 1" })
          : say("ok");
      }
      const level = Number(/LEVEL (\d)/.exec(first)?.[1]);
      if (toolResults(req) === 0) {
        return call("branch", { description: `level ${level + 1}`, prompt: `LEVEL ${level + 1}` });
      }
      return call("return", {
        message: `level ${level} saw: ${text(req.messages.at(-1) as Message)}`,
      });
    });
    await run("PARENT");
    const folds = runtime.folds();
    expect(folds.map((f) => f.depth)).toEqual([1, 2, 3]);
    expect(folds.every((f) => f.status === "returned")).toBe(true);
    const level3 = provider.requests.filter((r) => firstUser(r).includes("LEVEL 3"))[1];
    const refusal = level3?.messages.at(-1);
    expect(refusal).toMatchObject({ role: "toolResult", isError: true });
    expect(text(refusal as Message)).toContain("fold depth 4 exceeds the maximum depth 3");
  });

  it("forces a fold past its timeout", async () => {
    const { runtime, events, run } = setup((req) => {
      if (firstUser(req).includes("PARENT")) {
        return toolResults(req) === 0
          ? call("branch", { description: "slow", prompt: "FOLD slow", timeout_seconds: 0.05 })
          : say("ok");
      }
      return call("wait", {});
    });
    await run("PARENT");
    const [fold] = runtime.folds();
    expect(fold).toMatchObject({ status: "forced", forcedReason: "timeout" });
    expect(events.at(-1)).toMatchObject({
      name: "fold_returned",
      payload: { forced: true, reason: "timeout" },
    });
  });

  it("cancelling the parent ends its folds, marked forced", async () => {
    const controller = new AbortController();
    const { runtime, run } = setup(
      (req) => {
        if (firstUser(req).includes("PARENT")) {
          return toolResults(req) === 0
            ? call("branch", { description: "outer", prompt: "LEVEL 1" })
            : say("ok");
        }
        if (firstUser(req).includes("LEVEL 1") && toolResults(req) === 0)
          return call("branch", { description: "inner", prompt: "LEVEL 2" });
        return call("wait", {});
      },
      {
        onFoldEvent: (e) => {
          if (e.name === "fold_started" && e.payload.depth === 2)
            setTimeout(() => controller.abort(), 5);
        },
      },
    );
    await run("PARENT", controller.signal);
    await runtime.idle();
    const folds = runtime.folds();
    expect(folds).toHaveLength(2);
    for (const f of folds) expect(f).toMatchObject({ status: "forced", forcedReason: "cancelled" });
    expect(runtime.openCount).toBe(0);
  });

  it("a fold returning with a child still open forces the child back (parent_returned)", async () => {
    const { runtime, run } = setup(
      (req) => {
        const first = firstUser(req);
        if (first.includes("PARENT")) {
          return toolResults(req) === 0
            ? call("branch", { description: "outer", prompt: "LEVEL 1" })
            : say("ok");
        }
        if (first.includes("LEVEL 1")) {
          return {
            blocks: [
              {
                type: "toolCall",
                name: "branch",
                arguments: { description: "inner", prompt: "LEVEL 2" },
              },
              { type: "toolCall", name: "return", arguments: { message: "outer done" } },
            ],
          };
        }
        return call("wait", {});
      },
      {},
      { toolExecution: { type: "parallel" } },
    );
    await run("PARENT");
    await runtime.idle();
    const [outer, inner] = runtime.folds();
    expect(outer).toMatchObject({ status: "returned", result: "outer done" });
    expect(inner).toMatchObject({ status: "forced", forcedReason: "parent_returned" });
  });

  it("a forced return uses the session's summarizer when there is one", async () => {
    const { runtime, run } = setup(
      (req) => {
        if (firstUser(req).includes("PARENT")) {
          return toolResults(req) === 0
            ? call("branch", { description: "slow", prompt: "FOLD slow", timeout_seconds: 0.02 })
            : say("ok");
        }
        return call("wait", {});
      },
      { summarize: async (steps) => `LLM SUMMARY of ${steps.length} steps` },
    );
    await run("PARENT");
    expect(runtime.folds()[0]?.result).toMatch(
      /forced to return: timeout.*\n.*LLM SUMMARY of \d+ steps/s,
    );
  });

  it("injects ranked memories greedily up to 20% of the budget and keeps remembered returns", async () => {
    const memories = new FoldMemoryFile({
      dataDir: mkdtempSync(path.join(tmpdir(), "fold-memory-")),
      workspace: "/work/project",
    });
    const m1 = memories.remember("lint the code", "LESSON-ONE: tests live next to code");
    memories.remember("lint everything", `LESSON-BIG ${"word ".repeat(400)}`);
    const m3 = memories.remember("lint with biome", "LESSON-THREE: run biome");
    memories.remember("deploy the app", "LESSON-UNRELATED: deploys go through CI");
    const { runtime, provider, run } = setup(
      (req) => {
        if (firstUser(req).includes("PARENT")) {
          return toolResults(req) === 0
            ? call("branch", { description: "lint", prompt: "FOLD lint", budget: 1000 })
            : say("ok");
        }
        return call("return", { message: "biome is clean", remember: true });
      },
      { memories },
    );
    await run("PARENT");
    const first = firstUser(provider.requests.find((r) => firstUser(r).includes("FOLD lint"))!);
    expect(first).toContain("LESSON-ONE");
    expect(first).toContain("LESSON-THREE");
    expect(first).not.toContain("LESSON-BIG");
    expect(first).not.toContain("LESSON-UNRELATED");
    expect([...(runtime.folds()[0]?.injectedMemoryIds ?? [])].sort()).toEqual(
      [m1.id, m3.id].sort(),
    );
    expect(memories.list().map((m) => `${m.description}: ${m.text}`)).toContain(
      "lint: biome is clean",
    );
  });

  it("refuses a budget above the maximum, naming it", async () => {
    const { runtime, provider, run } = setup((req) =>
      toolResults(req) === 0
        ? call("branch", { description: "big", prompt: "FOLD big", budget: 40_000 })
        : say("ok"),
    );
    await run("PARENT");
    expect(runtime.folds()).toHaveLength(0);
    expect(all(provider.requests.at(-1) as StreamRequest)).toContain(
      "budget 40000 exceeds the maximum 32768",
    );
  });

  it("refuses a fold beyond the session's concurrent limit", async () => {
    const { runtime, provider, run } = setup(
      (req) => {
        const first = firstUser(req);
        if (first.includes("PARENT")) {
          if (toolResults(req) > 0) return say("ok");
          return {
            blocks: [
              {
                type: "toolCall",
                name: "branch",
                arguments: { description: "a", prompt: "FOLD a" },
              },
              {
                type: "toolCall",
                name: "branch",
                arguments: { description: "b", prompt: "FOLD b" },
              },
            ],
          };
        }
        return call("return", { message: `done ${first.includes("FOLD a") ? "a" : "b"}` });
      },
      { settings: { max_concurrent: 1 } },
      { toolExecution: { type: "parallel" } },
    );
    await run("PARENT");
    expect(runtime.folds()).toHaveLength(1);
    expect(all(provider.requests.at(-1) as StreamRequest)).toContain(
      "at most 1 folds may be open at once",
    );
  });

  it("the extractive summary keeps the last steps within its limit", () => {
    const steps = [userMessage("prompt"), userMessage("a".repeat(4000)), userMessage("last step")];
    const summary = foldExtractiveSummary(steps, (t) => Math.ceil(t.length / 4), 100);
    expect(summary).toContain("last step");
    expect(summary.length).toBeLessThan(600);
  });
});
