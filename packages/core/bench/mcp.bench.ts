// MCP tool call overhead: the `everything` reference server over stdio, its `echo` tool called
// (a) directly with the SDK client (client.callTool) and (b) as Arbor calls it: through the
// registry's tool (name routing, abort signal, timeout, redaction, result conversion), and
// through the agent loop (one model turn of N calls). Same server process, same connection.
// Target: the added overhead's median < 1 ms per call.
// Start-up: McpManager.start() is all the app's start waits for (apps/web runtime.ts). With a
// server that takes 5 s to initialize it must resolve as soon as with the same server starting at
// once (both spawn one process: that cost is any stdio server's), the slow one still connecting
// (issue #11: "a server that takes 5 s to initialize delays nothing").
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../src/agent/agent.js";
import { McpManager } from "../src/mcp/manager.js";
import { modelConfig } from "../src/model/llm-config.js";
import { everythingServerScript, testServerScript } from "../src/testing/mcp-servers.js";
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

const STARTS = 5;
const SLOW_START_MS = 5_000;

/** ms until McpManager.start() resolves for `servers`, and the slow server's status then. */
async function startOnce(
  servers: Record<string, unknown>,
): Promise<{ ms: number; slow: string | undefined; manager: McpManager }> {
  const root = mkdtempSync(join(tmpdir(), "arbor-mcp-start-"));
  const configPath = join(root, "mcp_servers.json");
  writeFileSync(configPath, JSON.stringify({ mcpServers: servers }));
  const manager = new McpManager({
    configPath,
    workspaceRoot: root,
    env: process.env,
    logger: silent,
  });
  const t = performance.now();
  await manager.start();
  const ms = performance.now() - t;
  return { ms, slow: manager.servers().find((s) => s.name === "slow")?.status, manager };
}

async function startUp(): Promise<BenchFigure> {
  const server = (env: Record<string, string>) => ({
    slow: { command: process.execPath, args: [testServerScript()], env },
  });
  const withSlow: number[] = [];
  const withFast: number[] = [];
  const slowStates = new Set<string | undefined>();
  for (let i = 0; i < STARTS + 1; i++) {
    const fast = await startOnce(server({}));
    await fast.manager.close();
    const slow = await startOnce(server({ SLOW_START_MS: String(SLOW_START_MS) }));
    slowStates.add(slow.slow);
    await slow.manager.close();
    if (i > 0) {
      withFast.push(fast.ms);
      withSlow.push(slow.ms);
    }
  }
  const added = median(withSlow) - median(withFast);
  const connecting = slowStates.size === 1 && slowStates.has("connecting");
  return {
    name: "MCP start-up: start() with a server taking 5 s to initialize − one starting at once",
    value: added,
    unit: "ms",
    target: "< 50 ms (the app serves before slow servers connect)",
    pass: added < 50 && connecting,
    notes: `median of ${STARTS} starts each: slow server ${median(withSlow).toFixed(2)} ms, immediate server ${median(withFast).toFixed(2)} ms (both spawn one process); the slow server was ${[...slowStates].join("/")} when start() resolved`,
  };
}

export async function run(): Promise<BenchFigure[]> {
  const startFigure = await startUp();
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
      startFigure,
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
