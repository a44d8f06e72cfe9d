import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../model/llm-config.js";
import type { AssistantMessage, Message, ToolResultMessage } from "../../model/llm-messages.js";
import { emptyUsage, userMessage } from "../../model/llm-messages.js";
import { composeAnswer, toolArguments } from "./answers.js";

function tool(name: string, properties: string[]): ToolDefinition {
  return {
    name,
    description: name,
    parameters: {
      type: "object",
      properties: Object.fromEntries(properties.map((p) => [p, { type: "string" }])),
    },
  };
}

const WORKSPACE_TOOLS = [
  tool("list_files", ["path", "pattern", "max_depth"]),
  tool("read_file", ["path", "offset", "limit"]),
  tool("search", ["pattern", "path", "include"]),
];

function callMessage(id: string, name: string, args: Record<string, unknown>): AssistantMessage {
  return {
    role: "assistant",
    content: [
      { type: "text", text: "Let me look." },
      { type: "toolCall", id, name, arguments: args },
    ],
    stopReason: "toolUse",
    model: "arbor-offline",
    provider: "offline",
    usage: emptyUsage(),
    timestamp: 2,
  };
}

function resultMessage(id: string, name: string, text: string, isError = false): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: name,
    content: [{ type: "text", text }],
    isError,
    timestamp: 3,
  };
}

function ask(text: string, tools = WORKSPACE_TOOLS, history: Message[] = []) {
  return composeAnswer({ messages: [...history, userMessage(text, 1)], tools });
}

describe("composeAnswer: tool calls", () => {
  it("lists files with a path argument", () => {
    expect(ask("list files in src")).toEqual({
      kind: "toolCall",
      text: "Let me list the files in `src`.",
      toolCallId: expect.stringMatching(/^offline_call_1_[0-9a-z]{7}$/),
      toolName: "list_files",
      arguments: { path: "src" },
    });
  });

  it("reads the named file", () => {
    const answer = ask("show me src/index.ts");
    expect(answer.kind === "toolCall" && answer.arguments).toEqual({ path: "src/index.ts" });
    expect(answer.kind === "toolCall" && answer.toolName).toBe("read_file");
  });

  it("searches with the quoted term and scope", () => {
    const answer = ask('search for "TODO:" in packages/core');
    expect(answer).toMatchObject({
      kind: "toolCall",
      toolName: "search",
      arguments: { pattern: "TODO:", path: "packages/core" },
    });
  });

  it("searches for an identifier to find its definition", () => {
    expect(ask("where is createAgent defined?")).toMatchObject({
      kind: "toolCall",
      toolName: "search",
      arguments: { pattern: "createAgent" },
      text: "Let me search for `createAgent` to find where it is defined.",
    });
  });

  it("numbers tool call ids after the calls already in the conversation", () => {
    const history: Message[] = [
      userMessage("list files", 0),
      callMessage("offline_call_1", "list_files", { path: "." }),
      resultMessage("offline_call_1", "list_files", "a.ts"),
      {
        ...callMessage("x", "read_file", {}),
        content: [{ type: "text", text: "done" }],
        stopReason: "stop",
      },
    ];
    const answer = ask("read a.ts", WORKSPACE_TOOLS, history);
    expect(answer.kind === "toolCall" && answer.toolCallId).toMatch(/^offline_call_2_/);
  });

  it("gives the same id to the same conversation and different ids to sibling branches", () => {
    const history: Message[] = [
      userMessage("list files", 0),
      callMessage("offline_call_1", "list_files", { path: "." }),
      resultMessage("offline_call_1", "list_files", "a.ts"),
    ];
    const idOf = (text: string, at: number): string | false => {
      const answer = composeAnswer({
        messages: [...history, userMessage(text, at)],
        tools: WORKSPACE_TOOLS,
      });
      return answer.kind === "toolCall" && answer.toolCallId;
    };
    expect(idOf("list files", 5)).toBe(idOf("list files", 5));
    // Two branches forked after "hello", each asking for files: an append merge holds both calls.
    expect(idOf("list files", 5)).not.toBe(idOf("list files", 6));
    expect(idOf("list files", 5)).not.toBe(idOf("list files in src", 5));
  });

  it("explains instead of calling a tool that is not offered", () => {
    const answer = ask("read package.json", [tool("list_files", ["path"])]);
    expect(answer.kind).toBe("text");
    expect(answer.text).toContain("`read_file` tool");
    expect(answer.text).toContain('"list files"');
    expect(answer.text).not.toContain('"read package.json"');
  });

  it("fits argument names to the tool's schema", () => {
    expect(toolArguments(tool("read_file", ["file_path"]), { path: "a.ts" })).toEqual({
      file_path: "a.ts",
    });
    expect(toolArguments(tool("search", ["query", "dir"]), { pattern: "x", path: "src" })).toEqual({
      query: "x",
      dir: "src",
    });
    expect(toolArguments({ name: "t", description: "", parameters: {} }, { path: "." })).toEqual({
      path: ".",
    });
  });
});

describe("composeAnswer: answering from tool results", () => {
  it("summarises the results of the last call and stops", () => {
    const answer = composeAnswer({
      tools: WORKSPACE_TOOLS,
      messages: [
        userMessage("list files", 0),
        callMessage("offline_call_1", "list_files", { path: "." }),
        resultMessage("offline_call_1", "list_files", "package.json\nsrc/index.ts"),
      ],
    });
    expect(answer.kind).toBe("text");
    expect(answer.text).toMatch(/^I listed the workspace root: 2 entries\./);
  });

  it("answers each of several results, in order", () => {
    const call: AssistantMessage = {
      ...callMessage("c1", "read_file", { path: "a.txt" }),
      content: [
        { type: "toolCall", id: "c1", name: "read_file", arguments: { path: "a.txt" } },
        { type: "toolCall", id: "c2", name: "read_file", arguments: { path: "b.txt" } },
      ],
    };
    const answer = composeAnswer({
      tools: WORKSPACE_TOOLS,
      messages: [
        userMessage("read a.txt and b.txt", 0),
        call,
        resultMessage("c1", "read_file", "1\thello"),
        resultMessage("c2", "read_file", "ENOENT: no such file", true),
      ],
    });
    expect(answer.text).toMatch(
      /^`a\.txt` has 1 line:[\s\S]*\n\nThe `read_file` call failed: ENOENT/,
    );
  });

  it("uses the user's question to read search results as a definition lookup", () => {
    const answer = composeAnswer({
      tools: WORKSPACE_TOOLS,
      messages: [
        userMessage("find where createAgent is defined", 0),
        callMessage("c1", "search", { pattern: "createAgent" }),
        resultMessage(
          "c1",
          "search",
          "src/x.ts:2:use(createAgent)\nsrc/agent.ts:10:export const createAgent = (o) => {",
        ),
      ],
    });
    expect(answer.text).toMatch(/^`createAgent` looks defined at `src\/agent\.ts:10`/);
  });
});

describe("composeAnswer: prose", () => {
  it("greets and explains the offline model and how to configure a real one", () => {
    const { text } = ask("hello!");
    expect(text).toMatch(/^Hello! I'm the \*\*Arbor offline model\*\* \(`arbor-offline`\)/);
    for (const name of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "GOOGLE_GENERATIVE_AI_API_KEY",
      "ARBOR_PROVIDER",
      "ARBOR_MODEL",
    ]) {
      expect(text).toContain(name);
    }
    expect(text).toContain('"search for TODO"');
  });

  it("echoes an unrecognised request briefly", () => {
    const long = `please write me a poem about ${"trees ".repeat(40)}`;
    const { text } = ask(long);
    expect(text).toMatch(/^You asked: "please write me a poem about trees trees/);
    expect(text.split("\n")[0]?.length).toBeLessThan(200);
    expect(text).toContain("…");
  });

  it("lists only what the offered tools allow", () => {
    expect(ask("help", []).text).toContain("No workspace tools are enabled in this session");
    const onlySearch = ask("what can you do?", [tool("search", ["pattern"])]).text;
    expect(onlySearch).toContain('"search for TODO"');
    expect(onlySearch).not.toContain('"list files"');
  });

  it("asks for what is missing", () => {
    expect(ask("read the file").text).toMatch(/^Which file should I read\?/);
    expect(ask("search").text).toMatch(/^What should I search for\?/);
  });

  it("answers an empty conversation and one that ends with its own reply", () => {
    expect(composeAnswer({ messages: [], tools: [] }).text).toContain("Arbor offline model");
    const ended = composeAnswer({
      messages: [
        userMessage("hi", 0),
        { ...callMessage("c", "x", {}), content: [], stopReason: "stop" },
      ],
      tools: [],
    });
    expect(ended.text).toContain('for example "list files"');
  });
});
