import { FoldingMcpHttp, FoldMemories, mcpSessionKey } from "@arbor/core";
import { afterAll, describe, expect, it } from "vitest";
import { createStore } from "../src/create-store.js";
import { FoldMemoryTable } from "../src/fold-memories.js";
import { PrismaMcpSessionStore } from "../src/mcp-sessions.js";
import type { Provider } from "../src/prisma-schema.js";
import { pgAvailable, testDatabases } from "./stores.js";

// What issue #26 moved from one instance's memory and data directory into the database, on both
// databases: the sessions of Arbor's MCP server (/api/mcp) and the fold memories. "Two
// instances" are two stores (two pools) on one database, each with its own FoldingMcpHttp.

/** A JSON-RPC POST to /api/mcp, as the SDK's client sends one. */
function rpc(body: unknown, sessionId?: string): Request {
  return new Request("http://localhost/api/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(sessionId !== undefined
        ? { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" }
        : {}),
    },
    body: JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "db-test", version: "1.0.0" },
  },
};

let nextId = 1;
async function callTool(
  http: FoldingMcpHttp,
  sessionId: string,
  name: string,
  args: Record<string, unknown> = {},
  person = "u-ana",
) {
  const response = await http.handle(
    rpc(
      { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args } },
      sessionId,
    ),
    person,
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    result: { content: Array<{ text: string }>; isError?: boolean };
  };
  const text = body.result.content.map((c) => c.text).join("\n");
  if (body.result.isError) throw new Error(text);
  return JSON.parse(text);
}

for (const provider of ["sqlite", "postgresql"] as const satisfies readonly Provider[]) {
  describe.skipIf(provider === "postgresql" && !pgAvailable())(
    `MCP sessions and fold memories in the database (${provider})`,
    () => {
      const databases = testDatabases(provider);
      afterAll(() => databases.dispose());

      async function twoInstances() {
        const url = await databases.fresh();
        const a = await createStore({ databaseUrl: url, skipMigrations: true });
        const b = await createStore({ databaseUrl: url, skipMigrations: true });
        return { a: a.db, b: b.db, close: () => Promise.all([a.close(), b.close()]) };
      }

      it("an MCP session opened through one instance is served by the other, folds and all", async () => {
        const { a, b, close } = await twoInstances();
        try {
          const http = (db: typeof a) =>
            new FoldingMcpHttp({ serve: { tools: [] }, store: new PrismaMcpSessionStore(db) });
          const [onA, onB] = [http(a), http(b)];
          const opened = await onA.handle(rpc(initialize), "u-ana");
          expect(opened.status).toBe(200);
          const sessionId = opened.headers.get("mcp-session-id") as string;
          expect(sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
          const fold = await callTool(onB, sessionId, "branch", { description: "look around" });
          expect(fold).toMatchObject({ fold_id: "fold-1", depth: 1 });
          expect(await callTool(onA, sessionId, "fold_status")).toMatchObject({
            active_fold_id: "fold-1",
          });
          // parallel changes through both instances: each opens a nested fold, none is lost
          const nested = await Promise.all([
            callTool(onA, sessionId, "branch", { description: "inner a" }),
            callTool(onB, sessionId, "branch", { description: "inner b" }),
          ]).catch((error: Error) => error);
          // the second branch opens inside the first (depth 3): both were counted, in some order
          expect(nested).toEqual(
            expect.arrayContaining([
              expect.objectContaining({ depth: 2 }),
              expect.objectContaining({ depth: 3 }),
            ]),
          );
          const status = await callTool(onB, sessionId, "fold_status");
          expect(status.folds.map((f: { fold_id: string }) => f.fold_id)).toEqual([
            "fold-1",
            "fold-2",
            "fold-3",
          ]);
          // the row is found by the id's hash; the id itself is stored nowhere
          const row = await a.client.mcpSession.findUnique({
            where: { key: mcpSessionKey(sessionId) },
          });
          expect(row?.personId).toBe("u-ana");
          const rows = await a.client.mcpSession.findMany({
            select: { key: true, personId: true, state: true },
          });
          expect(JSON.stringify(rows)).not.toContain(sessionId);
          // another person's request, through either instance, finds no such session
          const asBob = await onB.handle(
            rpc({ jsonrpc: "2.0", id: 99, method: "tools/list" }, sessionId),
            "u-bob",
          );
          expect(asBob.status).toBe(404);
          // ended through B, it is gone for A
          const ended = await onB.handle(
            new Request("http://localhost/api/mcp", {
              method: "DELETE",
              headers: { "mcp-session-id": sessionId },
            }),
            "u-ana",
          );
          expect(ended.status).toBe(200);
          const gone = await onA.handle(
            rpc({ jsonrpc: "2.0", id: 100, method: "tools/list" }, sessionId),
            "u-ana",
          );
          expect(gone.status).toBe(404);
        } finally {
          await close();
        }
      });

      it("the store: optimistic save, touch, prune and a person's sessions trimmed", async () => {
        const { db } = await databases.store();
        const store = new PrismaMcpSessionStore(db);
        await store.create("k1", { personId: "u-ana", state: "{}", now: 1_000 });
        const row = await store.get("k1");
        expect(row).toEqual({
          personId: "u-ana",
          state: "{}",
          version: 0,
          createdAt: 1_000,
          lastUsedAt: 1_000,
        });
        expect(await store.save("k1", '{"a":1}', 0, 2_000)).toBe(true);
        // a save over the version it read, now stale, is refused
        expect(await store.save("k1", '{"b":1}', 0, 2_500)).toBe(false);
        expect(await store.get("k1")).toMatchObject({
          state: '{"a":1}',
          version: 1,
          lastUsedAt: 2_000,
        });
        await store.touch("k1", 3_000);
        await store.touch("k1", 2_000);
        expect((await store.get("k1"))?.lastUsedAt).toBe(3_000);
        await store.create("k2", { personId: "u-ana", state: "{}", now: 4_000 });
        await store.create("k3", { personId: "u-ana", state: "{}", now: 5_000 });
        await store.create("k4", { personId: "u-bob", state: "{}", now: 500 });
        expect(await store.trim("u-ana", 2)).toBe(1);
        expect(await store.get("k1")).toBeUndefined();
        expect(await store.prune(1_000)).toBe(1);
        expect(await store.get("k4")).toBeUndefined();
        expect(await store.delete("k2")).toBe(true);
        expect(await store.delete("k2")).toBe(false);
        expect(await store.get("k3")).toMatchObject({ personId: "u-ana" });
      });

      it("fold memories kept through one instance are recalled through the other; one copy of a lesson", async () => {
        const { a, b, close } = await twoInstances();
        try {
          const memories = (db: typeof a, workspace = "/w/app") =>
            new FoldMemories({ records: new FoldMemoryTable(db), workspace, limit: 3 });
          const [onA, onB] = [memories(a), memories(b)];
          const kept = await onA.remember("run the parser tests", "use vitest run src/parser");
          expect((await onB.recall("parser tests fail", 1000)).map((m) => m.text)).toEqual([
            "use vitest run src/parser",
          ]);
          // the same lesson kept at once through both: one copy, both get it back
          const twice = await Promise.all([
            onA.remember("deploy", "tag then push"),
            onB.remember("deploy", "tag then push"),
          ]);
          expect(twice[0].id).toBe(twice[1].id);
          expect(await onA.list()).toHaveLength(2);
          // another workspace has its own
          expect(await memories(b, "/w/other").list()).toEqual([]);
          // the oldest beyond the limit go; forget by id
          await onB.remember("release", "bump the version");
          await onB.remember("docs", "regenerate api.md");
          expect((await onA.list()).map((m) => m.text)).toEqual([
            "tag then push",
            "bump the version",
            "regenerate api.md",
          ]);
          expect(await onA.forget(kept.id)).toBe(false);
          const first = (await onA.list())[0];
          expect(await onB.forget(first?.id ?? "")).toBe(true);
          expect(await onA.list()).toHaveLength(2);
        } finally {
          await close();
        }
      });
    },
  );
}
