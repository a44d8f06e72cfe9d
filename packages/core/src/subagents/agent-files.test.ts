import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { modelConfig } from "../model/llm-config.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { defineTool } from "../tools/tool.js";
import { defaultAgentDirs, loadAgentDefinitions, parseAgentFile } from "./agent-files.js";
import { agentChildTools, agentModel, agentTool } from "./agent-tools.js";

const tool = (name: string) =>
  defineTool({
    name,
    label: name,
    description: name,
    parameters: z.object({}),
    execute: async () => ({ content: [] }),
  });

describe("agent files", () => {
  it("parses Claude Code's shape: tools mapped, model inherit, body as prompt", () => {
    const parsed = parseAgentFile(
      "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob, Bash, Edit, Write, find_definition\nmodel: inherit\n---\nYou review.\n",
      { path: "/a.md", source: "claude" },
    );
    expect(parsed).toEqual({
      ok: true,
      agent: {
        name: "reviewer",
        description: "Reviews code",
        systemPrompt: "You review.",
        tools: [
          "read_file",
          "search",
          "list_files",
          "bash",
          "edit_file",
          "write_file",
          "find_definition",
        ],
        path: "/a.md",
        source: "claude",
      },
    });
  });

  it("reports malformed files with the reason; .arbor/agents wins a clash; missing dirs skipped", () => {
    const ws = mkdtempSync(join(tmpdir(), "agents-"));
    const claude = join(ws, ".claude", "agents");
    const arbor = join(ws, ".arbor", "agents");
    mkdirSync(claude, { recursive: true });
    mkdirSync(arbor, { recursive: true });
    writeFileSync(join(claude, "helper.md"), "---\nname: helper\ndescription: claude's\n---\nA");
    writeFileSync(join(arbor, "helper.md"), "---\nname: helper\ndescription: arbor's\n---\nB");
    writeFileSync(join(arbor, "bad.md"), "---\nname: has space\ndescription: x\n---\n");
    writeFileSync(join(arbor, "nodesc.md"), "---\nname: nodesc\n---\n");
    writeFileSync(join(arbor, "notes.txt"), "ignored");
    const loaded = loadAgentDefinitions([
      ...defaultAgentDirs(ws),
      { dir: join(ws, "none"), source: "arbor" },
    ]);
    expect(loaded.agents.map((a) => [a.name, a.description, a.source])).toEqual([
      ["helper", "arbor's", "arbor"],
    ]);
    expect(loaded.problems.map((p) => [p.path.slice(ws.length), p.reason])).toEqual([
      ["/.arbor/agents/bad.md", expect.stringContaining('`name` "has space"')],
      ["/.arbor/agents/nodesc.md", "`description` is missing"],
    ]);
  });

  it("maps models: inherit, a model id, <protocol>/<model>, aliases", () => {
    const session = modelConfig({ protocol: "anthropic-messages", model: "claude-x", apiKey: "k" });
    expect(agentModel(undefined, session)).toBe(session);
    expect(agentModel("other-model", session)).toMatchObject({ model: "other-model", apiKey: "k" });
    expect(agentModel("haiku", session).model).toBe("claude-haiku-4-5");
    const offline = modelConfig({ protocol: "offline", model: "arbor-offline" });
    expect(agentModel("sonnet", offline)).toBe(offline);
    expect(() => agentModel("openai-chat/gpt-x", session, {})).toThrow(/OPENAI_API_KEY/);
    expect(agentModel("openai-chat/gpt-x", session, { OPENAI_API_KEY: "o" })).toMatchObject({
      protocol: "openai-chat",
      model: "gpt-x",
    });
  });

  it("child tools: the parent's (sub-agents excluded) or the named ones", () => {
    const parent = [tool("read_file"), tool("bash"), tool("search")];
    const def = {
      name: "a",
      description: "d",
      systemPrompt: "",
      path: "/a",
      source: "arbor" as const,
    };
    const host = {
      provider: new ScriptedProvider(),
      model: () => modelConfig({ protocol: "offline", model: "m" }),
      parentTools: () => parent,
    };
    const sub = agentTool(def, host);
    expect(agentChildTools(def, [...parent, sub]).map((t) => t.name)).toEqual([
      "read_file",
      "bash",
      "search",
    ]);
    expect(
      agentChildTools({ ...def, tools: ["search", "read_file", "nope"] }, parent).map(
        (t) => t.name,
      ),
    ).toEqual(["search", "read_file"]);
    expect(agentChildTools({ ...def, tools: [] }, parent)).toEqual([]);
  });
});
