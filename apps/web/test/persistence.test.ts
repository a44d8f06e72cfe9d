import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeLlmServer, startFakeLlmServer } from "@arbor/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as sessions from "@/app/api/sessions/route";
import { createRuntime, setRuntime } from "@/lib/server/runtime";
import { capturingLogger, jsonRequest, params, readSse, TEST_TOKEN } from "./support";

// The runtime on its real store (@arbor/db, a SQLite file in ARBOR_DATA_DIR): what one server
// process wrote, the next one reads.

let llm: FakeLlmServer;
beforeEach(async () => {
  llm = await startFakeLlmServer();
});
afterEach(async () => {
  await setRuntime(undefined);
  await llm.close();
});

function env(dataDir: string): Record<string, string> {
  return {
    ARBOR_TOKEN: TEST_TOKEN,
    ARBOR_PROVIDER: "anthropic",
    ANTHROPIC_BASE_URL: llm.url,
    ANTHROPIC_API_KEY: "test",
    ARBOR_DATA_DIR: dataDir,
    WORKSPACE_DIR: dataDir,
  };
}

describe("the SQLite store", () => {
  it("keeps sessions and messages across a server restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-web-db-"));
    await setRuntime(await createRuntime({ env: env(dataDir), logger: capturingLogger([]) }));
    const created = await sessions.POST(
      jsonRequest("POST", "/api/sessions", { title: "Persistent" }),
      params({}),
    );
    const { session_id: id } = (await created.json()) as { session_id: string };
    llm.enqueue({ blocks: [{ type: "text", text: "stored answer" }] });
    const stream = await readSse(
      await messages.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages`, {
          session_id: id,
          payload: { type: "text", text: "remember me" },
        }),
        params({ id }),
      ),
    );
    expect(stream.some((e) => e.event === "content_final")).toBe(true);

    // a new process: the old runtime closes its database first, then a fresh one opens it
    await setRuntime(undefined);
    await setRuntime(await createRuntime({ env: env(dataDir), logger: capturingLogger([]) }));
    const list = (await (
      await sessions.GET(jsonRequest("GET", "/api/sessions"), params({}))
    ).json()) as Array<{ id: string; title: string; message_count: number }>;
    expect(list.map((s) => [s.id, s.title, s.message_count])).toEqual([[id, "Persistent", 2]]);
    const read = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const body = (await read.json()) as { messages: Array<{ body: { text?: string } }> };
    expect(body.messages.map((m) => m.body.text)).toEqual(["remember me", "stored answer"]);
  });
});
