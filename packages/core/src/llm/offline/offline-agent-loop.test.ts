import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentLoop } from "../../agent/loop.js";
import type { AgentContext } from "../../agent/types.js";
import { type AgentMessage, messageText, userMessage } from "../../model/llm-messages.js";
import { defineTool } from "../../tools/tool.js";
import { OfflineProvider, offlineModelConfig } from "./offline-provider.js";

// The offline model driving the real agent loop: what a new user without a key sees.

const files: Record<string, string> = {
  "package.json": '{\n  "name": "demo",\n  "private": true\n}\n',
};

const readFile = defineTool({
  name: "read_file",
  label: "Read file",
  description: "Read a file of the workspace",
  parameters: z.object({ path: z.string() }),
  async execute({ path }) {
    const text = files[path];
    if (text === undefined) throw new Error(`File not found: ${path}`);
    const numbered = text
      .replace(/\n$/, "")
      .split("\n")
      .map((line, i) => `${String(i + 1).padStart(6)}\t${line}`);
    return { content: [{ type: "text", text: `${path}\n${numbered.join("\n")}` }] };
  },
});

async function run(prompt: string): Promise<AgentMessage[]> {
  const context: AgentContext = { systemPrompt: "", messages: [], tools: [readFile] };
  const stream = agentLoop([userMessage(prompt)], context, {
    provider: new OfflineProvider(),
    model: offlineModelConfig(),
  });
  for await (const _event of stream) {
    // drain
  }
  return stream.result();
}

describe("OfflineProvider in the agent loop", () => {
  it("reads a file through the tool and answers from its content", async () => {
    const messages = await run("read package.json");
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const answer = messages.at(-1);
    if (answer?.role !== "assistant") throw new Error("expected an assistant reply");
    expect(answer.stopReason).toBe("stop");
    expect(messageText(answer)).toContain("`package.json` has 4 lines:");
    expect(messageText(answer)).toContain('"name": "demo",');
  });

  it("explains a failed tool call plainly", async () => {
    const messages = await run("read missing.ts");
    const answer = messages.at(-1);
    expect(answer && messageText(answer)).toMatch(/^The `read_file` call failed: .*missing\.ts/);
  });
});
