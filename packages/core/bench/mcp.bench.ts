// MCP tool call overhead: the `everything` reference server over stdio, its `echo` tool called
// (a) directly with the SDK client (client.callTool) and (b) as Arbor calls it: through the
// registry's tool (name routing, abort signal, timeout, redaction, result conversion), and
// through the agent loop (one model turn of N calls). Same server process, same connection.
// Target: the added overhead's median < 1 ms per call.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../src/agent/agent.js";
import { McpManager } from "../src/mcp/manager.js";
import { modelConfig } from "../src/model/llm-config.js";
import { everythingServerScript } from "../src/testing/mcp-servers.js";
import type { ScriptedBlock } from "../src/testing/script.js";
import { ScriptedProvider } from "../src/testing/scripted-provider.js";
import { ToolRegistry } from "../src/tools/registry.js";
import type { ToolContext } from "../src/tools/tool.js";
import { type BenchFigure, median } from "./figure.js";

const SINGLE_CALLS = 400;
const LOOP_CALLS = 200;
const RUNS = 5;
const TOOL = "mcp__everything__echo";
const model = modelConfig({ protocol: "offline", model: "bench" });
const silent = { debug() {}, info() {}, warn() {}, error() {} };

function context(): ToolContext {
  return {
    toolCallId: "c",
    toolName: TOOL,
    signal: new AbortController().signal,
    onUpdate: () => {},
    onProgress: () => {},
  };
}

export async function run(): Promise<BenchFigure[]> {
  const root = mkdtempSync(join(tmpdir(), "arbor-mcp-bench-"));
  const configPath = join(root, "mcp_servers.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [everythingServerScript(), "stdio"] },
      },
    }),
  );
  const manager = new McpManager({
    configPath,
    workspaceRoot: root,
    env: process.env,
    logger: silent,
  });
  await manager.start();
  await manager.settled();
  try {
    const client = manager.connection("everything")?.client;
    const registry = new ToolRegistry([], [manager]);
    const tool = registry.get(TOOL);
    if (client === undefined || tool === undefined) throw new Error("everything did not connect");
    const args = { message: "bench" };

    // (a) one call at a time, alternating, each timed on its own
    const direct: number[] = [];
    const viaRegistry: number[] = [];
    for (let i = 0; i < SINGLE_CALLS + 50; i++) {
      let t = performance.now();
      await client.callTool({ name: "echo", arguments: args });
      const d = performance.now() - t;
      t = performance.now();
      await tool.execute(args, context());
      const r = performance.now() - t;
      if (i >= 50) {
        direct.push(d);
        viaRegistry.push(r);
      }
    }
    const registryOverhead = median(viaRegistry) - median(direct);

    // (b) N calls in one model turn through the loop vs the same N calls sent at once directly
    const directBatch: number[] = [];
    const loopBatch: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      let t = performance.now();
      await Promise.all(
        Array.from({ length: LOOP_CALLS }, () =>
          client.callTool({ name: "echo", arguments: args }),
        ),
      );
      const d = performance.now() - t;
      const blocks: ScriptedBlock[] = Array.from({ length: LOOP_CALLS }, (_, n) => ({
        type: "toolCall",
        id: `c${n}`,
        name: TOOL,
        arguments: args,
      }));
      const provider = new ScriptedProvider([
        { blocks },
        { blocks: [{ type: "text", text: "ok" }] },
      ]);
      const agent = new Agent({ provider, model, tools: [...registry.list()] });
      t = performance.now();
      let ends = 0;
      for await (const event of agent.prompt("go")) if (event.type === "toolExecutionEnd") ends++;
      const l = performance.now() - t;
      if (ends !== LOOP_CALLS) throw new Error(`expected ${LOOP_CALLS} executions, got ${ends}`);
      if (i > 0) {
        directBatch.push(d);
        loopBatch.push(l);
      }
    }
    const loopOverhead = (median(loopBatch) - median(directBatch)) / LOOP_CALLS;

    return [
      {
        name: "MCP call overhead per call: registry tool − SDK client (stdio, echo)",
        value: registryOverhead,
        unit: "ms",
        target: "< 1 ms per call",
        pass: registryOverhead < 1,
        notes: `median of ${SINGLE_CALLS} calls each: registry ${median(viaRegistry).toFixed(3)} ms, direct ${median(direct).toFixed(3)} ms`,
      },
      {
        name: "MCP call overhead per call: agent loop − SDK client (stdio, echo)",
        value: loopOverhead,
        unit: "ms",
        target: "< 1 ms per call",
        pass: loopOverhead < 1,
        notes: `median of ${RUNS} × ${LOOP_CALLS} calls: loop ${median(loopBatch).toFixed(1)} ms (incl. the model turns), direct concurrent ${median(directBatch).toFixed(1)} ms`,
      },
    ];
  } finally {
    await manager.close();
  }
}
