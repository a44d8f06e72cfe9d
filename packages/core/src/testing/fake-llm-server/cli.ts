#!/usr/bin/env node
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { z } from "zod";
import { startFakeLlmServer } from "./server.js";
import { ScriptedTurnSchema } from "./turn-schema.js";

// Runs the fake LLM server as its own process, for e2e tests that start the app against it:
//   node dist/testing/fake-llm-server/cli.js [--port N] [--host H] [--script turns.json]
//     [--context-window TOKENS]
// The script file holds `{ "turns": [...] }` or a bare array of turns. Prints
// "fake-llm-server listening on <url>" once it accepts connections; SIGINT/SIGTERM stop it.

const ScriptFile = z.union([
  z.object({ turns: z.array(ScriptedTurnSchema) }),
  z.array(ScriptedTurnSchema).transform((turns) => ({ turns })),
]);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      host: { type: "string", default: "127.0.0.1" },
      script: { type: "string" },
      "context-window": { type: "string" },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be an integer from 0 to 65535, got ${values.port}`);
  }
  const script = values.script
    ? ScriptFile.parse(JSON.parse(await readFile(values.script, "utf8"))).turns
    : undefined;
  const window = values["context-window"];
  const contextWindow = window === undefined ? undefined : Number(window);
  if (contextWindow !== undefined && !(Number.isInteger(contextWindow) && contextWindow > 0)) {
    throw new Error(`--context-window must be a positive integer, got ${window}`);
  }
  const server = await startFakeLlmServer({
    port,
    host: values.host,
    ...(script ? { script } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
  });
  process.stdout.write(`fake-llm-server listening on ${server.url}\n`);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `fake-llm-server: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
