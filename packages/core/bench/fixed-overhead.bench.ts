// Issue #15, "no waste in the fixed part": the tokens every request pays before the conversation,
// the system prompt plus the tool definitions the request carries, for the default tools in Act
// mode. Before: the prompt repeated every tool's description and parameters (nativeTools: false,
// still what a model without native tools gets); after: it names the tools only. Counted with the
// runtime's tokenizer (gpt-tokenizer).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { estimateTextTokens } from "../src/agent/token-count.js";
import { buildSystemPrompt } from "../src/context/system-prompt.js";
import { createDefaultTools } from "../src/tools/builtin/default-tools.js";
import { toolDefinition } from "../src/tools/tool.js";
import type { BenchFigure } from "./figure.js";

export async function run(): Promise<BenchFigure[]> {
  const workspace = mkdtempSync(join(tmpdir(), "arbor-overhead-"));
  const tools = createDefaultTools({ workspaceRoot: workspace });
  const definitions = estimateTextTokens(JSON.stringify(tools.map((tool) => toolDefinition(tool))));
  const prompt = (nativeTools: boolean) =>
    estimateTextTokens(
      buildSystemPrompt({
        mode: "act",
        role: "actor",
        tools,
        workspace: { path: workspace, instructions: "" },
        nativeTools,
      }),
    );
  const before = prompt(false) + definitions;
  const after = prompt(true) + definitions;
  return [
    {
      name: "fixed overhead before (prompt repeats the tools)",
      value: before,
      unit: "tokens",
      target: "-",
      pass: true,
      informational: true,
      notes: `system prompt ${prompt(false)} + tool definitions ${definitions}, ${tools.length} tools`,
    },
    {
      name: "fixed overhead after (prompt names the tools)",
      value: after,
      unit: "tokens",
      target: "< before",
      pass: after < before,
      notes: `system prompt ${prompt(true)} + tool definitions ${definitions}; saves ${before - after}`,
    },
  ];
}
