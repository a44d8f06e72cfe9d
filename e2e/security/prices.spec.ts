import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, startApp, startFakeLlm } from "../crash/app-server.js";
import { Servers } from "./harness.js";

// Issue #28 (cost): a private deployment's prices.json in the data directory, against the
// production build. A bad file (a negative price) is a clear start-up error naming the file and
// the field, never silent zeroes: the app exits before it is ready and its log says why. A good
// file prices the sessions: GET /api/admin/sessions shows `usage.cost_usd` at the file's price, and
// GET /api/settings/prices shows the table in force.

/** The model the e2e apps ask the fake LLM for (crash/app-server.ts); not in the shipped table. */
const MODEL = "claude-test";

test("a prices.json with a negative price stops the start, naming the file and the field", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-sec-prices-"));
  const file = join(dataDir, "prices.json");
  writeFileSync(file, JSON.stringify({ models: { [MODEL]: { input: -2, output: 10 } } }));
  const fake = await startFakeLlm();
  try {
    const failure = await startApp({
      port: await freePort(),
      dataDir,
      fakeLlmUrl: fake.url,
      readyTimeoutMs: 25_000,
    }).then(
      async (app) => {
        await app.kill();
        return undefined;
      },
      (error: unknown) => String(error),
    );
    // the start is refused (instrumentation.ts: a StartRefused exits 1 with its cause), and the
    // log names the file and the field
    expect(failure).toBeDefined();
    expect(failure).toContain("exited before it was ready");
    expect(failure).toContain("Arbor cannot start: ");
    expect(failure).toContain(`${file}: models.${MODEL}.input: `);
    expect(failure).toContain("docs/cost.md");
  } finally {
    await fake.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.describe("a good prices.json", () => {
  let servers: Servers;
  test.beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-sec-data-"));
    const workspace = mkdtempSync(join(tmpdir(), "arbor-sec-ws-"));
    writeFileSync(
      join(dataDir, "prices.json"),
      JSON.stringify({
        as_of: "2026-11-20",
        sources: { contract: { url: "https://example.com/our-contract", taken: "2026-11-20" } },
        models: { [MODEL]: { input: 2, output: 10, cache_read: 0.5, cache_write: 4 } },
      }),
    );
    servers = await Servers.start({ dirs: { dataDir, workspace } });
  });
  test.afterAll(async () => {
    await servers?.close();
  });

  test("prices the session in the admin sessions table, and GET /api/settings/prices shows it", async () => {
    await servers.script([
      { blocks: [{ type: "text", text: "Priced." }], usage: { input: 1500, output: 400 } },
    ]);
    const id = await servers.api.createSession();
    await servers.api.send(id, { type: "text", text: "hello" });

    const listed = await servers.api.get("/api/admin/sessions");
    expect(listed.status).toBe(200);
    const row = (
      listed.json as Array<{
        id: string;
        usage: {
          input: number;
          output: number;
          cacheRead: number;
          cacheWrite: number;
          cost_usd: number | null;
        };
      }>
    ).find((session) => session.id === id);
    expect(row?.usage).toMatchObject({ input: 1500, output: 400 });
    const { input, output, cacheRead, cacheWrite } = row!.usage;
    expect(row?.usage.cost_usd).toBeCloseTo(
      (input * 2 + output * 10 + cacheRead * 0.5 + cacheWrite * 4) / 1e6,
      12,
    );

    const prices = await servers.api.get("/api/settings/prices");
    expect(prices.status).toBe(200);
    expect(prices.json).toMatchObject({
      as_of: "2026-11-20",
      overridden: true,
      sources: { contract: { url: "https://example.com/our-contract" } },
      models: { [MODEL]: { input: 2, output: 10, cache_read: 0.5, cache_write: 4 } },
    });
  });
});
