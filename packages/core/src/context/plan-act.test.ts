import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRecordingContext } from "../../test/support/tool-test-context.js";
import { SessionConfigSchema, sessionConfig } from "../model/session-config.js";
import { createDefaultTools } from "../tools/builtin/default-tools.js";
import { defineTool } from "../tools/tool.js";
import {
  askQuestionTool,
  isReadOnlyTool,
  planBodyFromCall,
  planModeToolPredicate,
  presentPlanTool,
  questionBodyFromCall,
  toolsForMode,
} from "./plan-act.js";

const builtins = createDefaultTools({ workspaceRoot: tmpdir() });
const uncategorised = defineTool({
  name: "mystery",
  label: "Mystery",
  description: "no category",
  parameters: z.object({}),
  execute: async () => ({ content: [] }),
});
const tools = [...builtins, uncategorised];
const names = (list: ReadonlyArray<{ name: string }>) => list.map((t) => t.name);

describe("toolsForMode", () => {
  it("plan mode: read-only tools plus present_plan and ask_question", () => {
    for (const role of ["planner", "actor"] as const) {
      expect(names(toolsForMode(tools, "plan", role))).toEqual([
        "read_file",
        "list_files",
        "search",
        "present_plan",
        "ask_question",
      ]);
    }
  });

  it("Role-based tool filtering: a Planner in act mode gets only read-only tools (and ask_question)", () => {
    expect(names(toolsForMode(tools, "act", "planner"))).toEqual([
      "read_file",
      "list_files",
      "search",
      "ask_question",
    ]);
  });

  it("an Actor in act mode gets every tool, then ask_question; never present_plan", () => {
    expect(names(toolsForMode([...tools, presentPlanTool], "act", "actor"))).toEqual([
      "bash",
      "read_file",
      "write_file",
      "edit_file",
      "list_files",
      "search",
      "mystery",
      "ask_question",
    ]);
  });

  it("isReadOnlyTool: only the read category; no category is not read-only", () => {
    expect(builtins.filter(isReadOnlyTool).map((t) => t.name)).toEqual([
      "read_file",
      "list_files",
      "search",
    ]);
    expect(isReadOnlyTool(uncategorised)).toBe(false);
    expect(isReadOnlyTool(presentPlanTool)).toBe(false);
  });

  it("planModeToolPredicate admits what plan mode offers and nothing else", () => {
    const allowed = planModeToolPredicate(tools);
    expect(["read_file", "search", "present_plan", "ask_question"].every(allowed)).toBe(true);
    expect(["bash", "write_file", "edit_file", "mystery", "nope"].some(allowed)).toBe(false);
  });
});

describe("Chat config includes agent mode", () => {
  it("Backward compatibility: a stored config without agent_mode loads as act", () => {
    const stored = { approval_policy: { type: "white_list", tools: ["read_file"] } };
    const config = SessionConfigSchema.parse(stored);
    expect(config.agent_mode).toBe("act");
    expect(sessionConfig().agent_mode).toBe("act");
    expect(SessionConfigSchema.safeParse({ agent_mode: "Execute" }).success).toBe(false);
  });

  it("Mode can be updated: the next call uses the new tool set at once", () => {
    const config = sessionConfig({ agent_mode: "act" });
    const before = names(toolsForMode(tools, config.agent_mode, "actor"));
    expect(before).toContain("write_file");
    config.agent_mode = "plan";
    const after = names(toolsForMode(tools, config.agent_mode, "actor"));
    expect(after).not.toContain("write_file");
    expect(after).toContain("present_plan");
    // it persists as plain data
    expect(SessionConfigSchema.parse(JSON.parse(JSON.stringify(config))).agent_mode).toBe("plan");
  });
});

describe("present_plan and ask_question", () => {
  it("present_plan acknowledges and carries the parsed plan in details", async () => {
    const ctx = createRecordingContext("present_plan");
    const params = presentPlanTool.parameters.parse({
      summary: "Fix the bug",
      steps: [{ title: "Read the code" }, { title: "Patch it", detail: "in parser.ts" }],
    });
    const result = await presentPlanTool.execute(params, ctx);
    expect(result.content).toEqual([
      { type: "text", text: "Plan with 2 steps presented to the user for review." },
    ]);
    expect(result.details).toEqual({
      kind: "plan",
      plan: {
        message_type: "plan",
        summary: "Fix the bug",
        steps: [{ title: "Read the code" }, { title: "Patch it", detail: "in parser.ts" }],
        tool_call_id: "call-1",
      },
    });
  });

  it("present_plan needs at least one step", () => {
    expect(presentPlanTool.parameters.safeParse({ steps: [] }).success).toBe(false);
  });

  it("ask_question acknowledges and carries the question with defaults", async () => {
    const ctx = createRecordingContext("ask_question");
    const params = askQuestionTool.parameters.parse({ question: "Which file?" });
    const result = await askQuestionTool.execute(params, ctx);
    expect(result.details).toEqual({
      kind: "question",
      question: {
        message_type: "question",
        question: "Which file?",
        choices: [],
        allow_free_text: true,
        tool_call_id: "call-1",
      },
    });
    expect(presentPlanTool.category).toBe("other");
    expect(askQuestionTool.category).toBe("other");
  });

  it("planBodyFromCall turns a call into a Plan body, or names what is wrong", () => {
    const ok = planBodyFromCall({
      id: "c7",
      name: "present_plan",
      arguments: { steps: [{ title: "Do it" }] },
    });
    expect(ok).toEqual({
      ok: true,
      body: { message_type: "plan", summary: "", steps: [{ title: "Do it" }], tool_call_id: "c7" },
    });
    const bad = planBodyFromCall({ id: "c8", name: "present_plan", arguments: { steps: [] } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^invalid present_plan arguments: steps:/);
    const wrong = planBodyFromCall({ id: "c9", name: "ask_question", arguments: {} });
    expect(wrong).toEqual({ ok: false, error: "expected a present_plan call, got ask_question" });
  });

  it("questionBodyFromCall turns a call into a Question body", () => {
    const ok = questionBodyFromCall({
      id: "q1",
      name: "ask_question",
      arguments: {
        question: "Tabs or spaces?",
        choices: ["tabs", "spaces"],
        allow_free_text: false,
      },
    });
    expect(ok).toEqual({
      ok: true,
      body: {
        message_type: "question",
        question: "Tabs or spaces?",
        choices: ["tabs", "spaces"],
        allow_free_text: false,
        tool_call_id: "q1",
      },
    });
    const bad = questionBodyFromCall({ id: "q2", name: "ask_question", arguments: {} });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("question:");
  });
});
