import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createDefaultTools } from "../tools/builtin/default-tools.js";
import { defineTool } from "../tools/tool.js";
import {
  ACT_MODE_INSTRUCTIONS,
  buildSystemPrompt,
  DEFAULT_BASE_PROMPT,
  formatToolForPrompt,
  PLAN_MODE_INSTRUCTIONS,
  type SystemPromptInput,
} from "./system-prompt.js";

const tools = createDefaultTools({ workspaceRoot: tmpdir() });
const base: SystemPromptInput = { mode: "act", role: "actor", tools };

/** The names of the tools the prompt lists, in order. */
function listedTools(prompt: string): string[] {
  return [...prompt.matchAll(/^### (\S+)$/gm)].map((m) => m[1]!);
}

describe("Mode-specific prompt injection", () => {
  it("plan mode: planning instructions and read-only tools, no execution instructions", () => {
    const prompt = buildSystemPrompt({ ...base, mode: "plan" });
    expect(prompt).toContain(PLAN_MODE_INSTRUCTIONS);
    expect(prompt).toContain("call present_plan");
    expect(prompt).toContain("call ask_question");
    expect(prompt).not.toContain(ACT_MODE_INSTRUCTIONS);
    expect(prompt).not.toMatch(/Mode: Act|Carry out the user's task/);
    expect(listedTools(prompt)).toEqual([
      "read_file",
      "list_files",
      "search",
      "present_plan",
      "ask_question",
    ]);
  });

  it("act mode: execution instructions and every tool plus ask_question, no planning instructions", () => {
    const prompt = buildSystemPrompt(base);
    expect(prompt).toContain(ACT_MODE_INSTRUCTIONS);
    expect(prompt).toContain("call ask_question");
    expect(prompt).not.toContain("Mode: Plan");
    expect(prompt).not.toContain("present_plan");
    expect(listedTools(prompt)).toEqual([
      "bash",
      "read_file",
      "write_file",
      "edit_file",
      "list_files",
      "search",
      "ask_question",
    ]);
  });
});

describe("Tool availability in prompt", () => {
  it("a Planner sees only read-permission tools", () => {
    const prompt = buildSystemPrompt({ ...base, role: "planner" });
    expect(listedTools(prompt)).toEqual(["read_file", "list_files", "search", "ask_question"]);
    expect(prompt).toContain("## Role: Planner");
  });

  it("the request carries the tools: the prompt names them and repeats no description or schema", () => {
    const prompt = buildSystemPrompt({ ...base, role: "planner" });
    expect(listedTools(prompt)).toEqual(["read_file", "list_files", "search", "ask_question"]);
    expect(prompt).not.toContain("Parameters:");
    expect(prompt).not.toContain("Path of the file");
    const full = buildSystemPrompt({ ...base, role: "planner", nativeTools: false });
    expect(full.length).toBeGreaterThan(prompt.length);
  });

  it("without native tools, descriptions are formatted consistently: name, description, parameters", () => {
    const prompt = buildSystemPrompt({ ...base, role: "planner", nativeTools: false });
    const blocks = prompt.split("\n\n").filter((b) => b.startsWith("### "));
    expect(blocks).toHaveLength(4);
    for (const block of blocks) {
      const lines = block.split("\n");
      expect(lines[0]).toMatch(/^### \w+$/);
      expect(lines[1]!.length).toBeGreaterThan(0);
      expect(lines).toContain("Parameters:");
      const params = lines.slice(lines.indexOf("Parameters:") + 1);
      for (const p of params) expect(p).toMatch(/^- \w+ \([^,]+, (required|optional)\)/);
    }
    const readFile = blocks.find((b) => b.startsWith("### read_file"))!;
    expect(readFile).toContain("- path (string, required): Path of the file");
    expect(readFile).toContain("- offset (integer, optional)");
  });

  it("usage examples are included where given", () => {
    const prompt = buildSystemPrompt({
      ...base,
      examples: { read_file: ['read_file {"path": "src/index.ts", "offset": 10, "limit": 20}'] },
    });
    expect(prompt).toContain(
      'Examples:\n- read_file {"path": "src/index.ts", "offset": 10, "limit": 20}',
    );
    expect(prompt.match(/Examples:/g)).toHaveLength(1);
  });

  it("a tool with no parameters says so", () => {
    const ping = defineTool({
      name: "ping",
      label: "Ping",
      description: "Checks the connection.",
      parameters: z.object({}),
      execute: async () => ({ content: [] }),
    });
    expect(formatToolForPrompt(ping)).toBe("### ping\nChecks the connection.\nParameters: none");
  });

  it("plan mode has no role section: the mode decides", () => {
    expect(buildSystemPrompt({ ...base, mode: "plan" })).not.toContain("## Role:");
    expect(buildSystemPrompt(base)).toContain("## Role: Actor");
  });
});

describe("Workspace context injection", () => {
  it("mentions the path, that paths are relative to it, and its instructions", () => {
    const prompt = buildSystemPrompt({
      ...base,
      workspace: { path: "/home/ana/shop", instructions: "Run tests with pnpm test." },
    });
    expect(prompt).toContain("## Workspace\nThe workspace is /home/ana/shop.");
    expect(prompt).toContain("File paths are relative to the workspace root");
    expect(prompt).toContain("Workspace instructions:\nRun tests with pnpm test.");
    expect(prompt.trimEnd().endsWith("Run tests with pnpm test.")).toBe(true);
  });

  it("has no workspace section without a workspace", () => {
    expect(buildSystemPrompt(base)).not.toContain("## Workspace");
  });
});

describe("Branch-specific prompt override", () => {
  it("the branch prompt takes precedence; the base prompt is the fallback; the default last", () => {
    const main = buildSystemPrompt({ ...base, basePrompt: "You are the shop assistant." });
    const alt = buildSystemPrompt({
      ...base,
      basePrompt: "You are the shop assistant.",
      branchPrompt: "You are a security reviewer.",
    });
    expect(alt.startsWith("You are a security reviewer.")).toBe(true);
    expect(alt).not.toContain("shop assistant");
    // the other branch (no override) keeps the base prompt
    expect(main.startsWith("You are the shop assistant.")).toBe(true);
    expect(buildSystemPrompt(base).startsWith(DEFAULT_BASE_PROMPT)).toBe(true);
    expect(buildSystemPrompt({ ...base, basePrompt: "  ", branchPrompt: "" })).toContain(
      DEFAULT_BASE_PROMPT,
    );
  });
});

it("is deterministic", () => {
  const input: SystemPromptInput = {
    ...base,
    mode: "plan",
    workspace: { path: "/w" },
    examples: { search: ['search {"pattern": "TODO"}'] },
  };
  expect(buildSystemPrompt(input)).toBe(buildSystemPrompt({ ...input, tools: [...tools] }));
});
