import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PricesResponse, type SessionSummary, usePriceOverride } from "@arbor/core";
import { afterEach, describe, expect, it } from "vitest";
import * as adminSessions from "@/app/api/admin/sessions/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as sessions from "@/app/api/sessions/route";
import * as prices from "@/app/api/settings/prices/route";
import { createRuntime, StartRefused } from "@/lib/server/runtime";
import {
  authedRequest,
  capturingLogger,
  jsonRequest,
  params,
  personWithToken,
  readSse,
  startTestServer,
  TEST_TOKEN,
  type TestServer,
} from "./support";

// The data directory's prices.json (docs/cost.md): read when the runtime starts; a bad file
// refuses the start naming the file and the field; a good one prices the sessions and is what
// GET /api/settings/prices shows.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  usePriceOverride(undefined);
});

function dataDirWith(prices: string): string {
  const dir = mkdtempSync(join(tmpdir(), "arbor-web-prices-"));
  writeFileSync(join(dir, "prices.json"), prices);
  return dir;
}

describe("the data directory's prices.json", () => {
  it("with a negative price refuses the start, naming the file and the field", async () => {
    const dataDir = dataDirWith('{"models":{"claude-sonnet-4-5":{"input":-3,"output":15}}}');
    const start = createRuntime({
      env: { ARBOR_TOKEN: TEST_TOKEN, ARBOR_DATA_DIR: dataDir, WORKSPACE_DIR: dataDir },
      logger: capturingLogger([]),
    });
    await expect(start).rejects.toThrow(StartRefused);
    await expect(start).rejects.toThrow(
      `${join(dataDir, "prices.json")}: models.claude-sonnet-4-5.input: `,
    );
  });

  it("that is not JSON refuses the start too", async () => {
    const dataDir = dataDirWith("{ not json");
    await expect(
      createRuntime({
        env: { ARBOR_TOKEN: TEST_TOKEN, ARBOR_DATA_DIR: dataDir, WORKSPACE_DIR: dataDir },
        logger: capturingLogger([]),
      }),
    ).rejects.toThrow(/prices\.json: not valid JSON/);
  });

  it("prices the sessions with its entries, and GET /api/settings/prices shows it", async () => {
    const dataDir = dataDirWith(
      JSON.stringify({
        as_of: "2026-11-20",
        sources: { contract: { url: "https://example.com/contract", taken: "2026-11-20" } },
        models: { "claude-sonnet-4-5": { input: 100, output: 1000 }, "gpt-4.1": null },
      }),
    );
    server = await startTestServer({ ARBOR_DATA_DIR: dataDir, ARBOR_MODEL: "claude-sonnet-4-5" });
    server.llm.enqueue({
      blocks: [{ type: "text", text: "hello" }],
      usage: { input: 1200, output: 300, cacheRead: 50, cacheWrite: 20 },
    });
    const created = await sessions.POST(jsonRequest("POST", "/api/sessions", {}), params({}));
    const { session_id: id } = (await created.json()) as { session_id: string };
    await readSse(
      await messages.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages`, {
          session_id: id,
          payload: { type: "text", text: "hi" },
        }),
        params({ id }),
      ),
    );
    const listed = await adminSessions.GET(
      authedRequest("http://localhost/api/admin/sessions"),
      params({}),
    );
    const [summary] = (await listed.json()) as SessionSummary[];
    expect(summary?.usage).toMatchObject({
      input: 1200,
      output: 300,
      cacheRead: 50,
      cacheWrite: 20,
    });
    // no cache prices in the entry: cache reads and writes at its input price
    expect(summary?.usage.cost_usd).toBeCloseTo((1200 * 100 + 300 * 1000 + 70 * 100) / 1e6, 12);

    // read as the other settings are (install.read): a member with a read token may, a viewer not
    const asPerson = async (role: "member" | "viewer") => {
      const person = await personWithToken(server!.runtime, role, { scope: "read" });
      return prices.GET(
        authedRequest("http://localhost/api/settings/prices", {
          headers: { authorization: person.authorization },
        }),
        params({}),
      );
    };
    expect((await asPerson("viewer")).status).toBe(403);
    const answer = await asPerson("member");
    expect(answer.status).toBe(200);
    const table = (await answer.json()) as PricesResponse;
    expect(table.overridden).toBe(true);
    expect(table.as_of).toBe("2026-11-20");
    expect(Object.keys(table.sources)).toEqual(
      expect.arrayContaining(["anthropic", "openai", "google", "contract"]),
    );
    expect(table.models["claude-sonnet-4-5"]).toEqual({ input: 100, output: 1000 });
    expect(table.models["gpt-4.1"]).toBeNull();
    expect(table.models["claude-opus-5-5"]).toMatchObject({ input: 4, output: 20 });

    const anonymous = await prices.GET(
      new Request("http://localhost/api/settings/prices"),
      params({}),
    );
    expect(anonymous.status).toBe(401);
  });

  it("absent: the shipped table, not overridden", async () => {
    server = await startTestServer({
      ARBOR_DATA_DIR: mkdtempSync(join(tmpdir(), "arbor-web-prices-")),
    });
    const answer = await prices.GET(
      authedRequest("http://localhost/api/settings/prices"),
      params({}),
    );
    const table = (await answer.json()) as PricesResponse;
    expect(table.overridden).toBe(false);
    expect(table.models["claude-sonnet-4-5"]).toMatchObject({ input: 3, output: 15 });
  });
});
