// The fold parts (issue #13): branch/return overhead through the ledger alone and through an MCP
// fold session (goal < 1 ms; contextd's acceptance criterion is < 100 ms), a branch/return round
// trip over MCP (the SDK's Client over Streamable HTTP, in process), and the secret scrubber's
// cost per return message (clean, with planted secrets, and a long one).
import { generateKeyPairSync } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { FoldSession } from "../src/folding/fold-session.js";
import { FoldLedger } from "../src/folding/ledger.js";
import { FoldingMcpHttp } from "../src/folding/mcp-http.js";
import { InMemoryMcpSessionStore } from "../src/folding/mcp-session-store.js";
import { scrubSecrets } from "../src/folding/scrub.js";
import { type BenchFigure, type BenchRun, median } from "./figure.js";

/** Median per-call milliseconds over `rounds` batches of `batch` calls. */
async function perCall(
  rounds: number,
  batch: number,
  once: (i: number) => unknown | Promise<unknown>,
): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    for (let i = 0; i < batch; i++) await once(i);
    samples.push((performance.now() - started) / batch);
  }
  return median(samples);
}

function ledgerOverheadMs(): Promise<number> {
  const ledger = new FoldLedger();
  return perCall(15, 10_000, () => {
    const opened = ledger.open({ description: "look around", budget: 4096 });
    if (!opened.ok) throw new Error(opened.refusal.message);
    ledger.meter(opened.fold.id, 300);
    ledger.close(opened.fold.id);
  });
}

function sessionOverheadMs(): Promise<number> {
  const session = new FoldSession({ scrub: (t) => t });
  return perCall(15, 2_000, async () => {
    await session.branch({ description: "look around", budget: 4096 });
    session.meter("a tool's output of a few words");
    await session.return({ message: "found it in src/config.ts" });
  });
}

async function mcpRoundTripMs(): Promise<number> {
  // the session's folds are read and written back through a store at each call (issue #26)
  const http = new FoldingMcpHttp({ serve: { tools: [] }, store: new InMemoryMcpSessionStore() });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
      fetch: (url, init) => http.handle(new Request(url, init), "bench"),
    }),
  );
  const ms = await perCall(9, 50, async () => {
    await client.callTool({ name: "branch", arguments: { description: "look around" } });
    await client.callTool({ name: "return", arguments: { message: "found it in src/config.ts" } });
  });
  await client.close();
  await http.close();
  return ms;
}

const CLEAN =
  "The config loader lives in packages/core/src/model/session-config.ts; it parses the session " +
  "config with zod and fills the folding defaults (budget 8192, depth 3). The tests are next to " +
  "it. Nothing else reads the file directly; the session manager goes through loadConfig().";

function withSecrets(): string {
  const pem = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();
  return [
    CLEAN,
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "DATABASE_URL=postgres://app:S3cr3t-P%40ss@db.internal:5432/app",
    pem,
  ].join("\n");
}

async function scrubMs(text: string): Promise<number> {
  return perCall(9, 40, () => scrubSecrets(text));
}

export const run: BenchRun = async () => {
  const ledger = await ledgerOverheadMs();
  const session = await sessionOverheadMs();
  const mcp = await mcpRoundTripMs();
  const secrets = withSecrets();
  const long = Array.from({ length: 16 }, () => CLEAN).join("\n");
  const clean = await scrubMs(CLEAN);
  const planted = await scrubMs(secrets);
  const longMs = await scrubMs(long);
  const figures: BenchFigure[] = [
    {
      name: "branch/return overhead, ledger (open, meter, close)",
      value: ledger * 1000,
      unit: "µs",
      target: "< 1 ms",
      pass: ledger < 1,
      notes: "median of 15 batches of 10 000 folds",
    },
    {
      name: "branch/return overhead, MCP fold session (scrubber off)",
      value: session * 1000,
      unit: "µs",
      target: "< 1 ms",
      pass: session < 1,
      notes: "FoldSession.branch + one metered tool output + return; median of 15 batches of 2 000",
    },
    {
      name: "branch + return over MCP (SDK Client, Streamable HTTP in process, scrubbed)",
      value: mcp,
      unit: "ms",
      target: "< 100 ms (contextd's criterion)",
      pass: mcp < 100,
      notes: "two tools/call round trips; median of 9 batches of 50",
    },
    {
      name: "scrubber per return: clean message",
      value: clean,
      unit: "ms",
      target: "info",
      pass: true,
      informational: true,
      notes: `${CLEAN.length} chars; secretlint preset + Arbor's rules`,
    },
    {
      name: "scrubber per return: planted secrets (AWS pair, GitHub, URL password, RSA key)",
      value: planted,
      unit: "ms",
      target: "info",
      pass: true,
      informational: true,
      notes: `${secrets.length} chars`,
    },
    {
      name: "scrubber per return: long clean message",
      value: longMs,
      unit: "ms",
      target: "info",
      pass: true,
      informational: true,
      notes: `${long.length} chars`,
    },
  ];
  return figures;
};
