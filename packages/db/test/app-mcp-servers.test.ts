// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax of mcp_servers.json
import { type AppMcpServerRecord, AppMcpServers } from "@arbor/core";
import { afterAll, describe, expect, it } from "vitest";
import { AppMcpServerTable } from "../src/app-mcp-servers.js";
import { createStore } from "../src/create-store.js";
import type { Provider } from "../src/prisma-schema.js";
import { pgAvailable, testDatabases } from "./stores.js";

// The MCP servers added in the settings (issue #27, docs/decisions/0056) are rows every instance
// on the database reads: added through A, B lists them; a change through A changes the stamp B
// polls; two instances adding one name at once keep one.

const ana = { id: "u-ana", name: "Ana" };

function record(name: string, at = 1_000): AppMcpServerRecord {
  return {
    name,
    definition: { command: "node", args: ["server.js", "--flag"], env: { MODE: "${MODE:-x}" } },
    enabled: true,
    addedBy: ana,
    addedAt: at,
    updatedAt: at,
    version: 1,
  };
}

for (const provider of ["sqlite", "postgresql"] as const satisfies readonly Provider[]) {
  describe.skipIf(provider === "postgresql" && !pgAvailable())(
    `AppMcpServerTable (${provider})`,
    () => {
      const databases = testDatabases(provider);
      afterAll(() => databases.dispose());

      async function twoInstances() {
        const url = await databases.fresh();
        const a = await createStore({ databaseUrl: url, skipMigrations: true });
        const b = await createStore({ databaseUrl: url, skipMigrations: true });
        return {
          a: new AppMcpServerTable(a.db),
          b: new AppMcpServerTable(b.db),
          close: () => Promise.all([a.close(), b.close()]),
        };
      }

      it("a server added through one instance is read, as written, through the other", async () => {
        const { a, b, close } = await twoInstances();
        try {
          expect(await a.add(record("everything"))).toBe(true);
          expect(await b.list()).toEqual([record("everything")]);
          // a name is kept once, whoever asks
          expect(await b.add({ ...record("everything"), definition: { url: "http://x" } })).toBe(
            false,
          );
          expect((await a.list())[0]?.definition).toEqual(record("everything").definition);
          const imported = { ...record("old", 2_000), addedBy: null };
          expect(await b.add(imported)).toBe(true);
          expect((await a.list()).map((r) => [r.name, r.addedBy])).toEqual([
            ["everything", ana],
            ["old", null],
          ]);
        } finally {
          await close();
        }
      });

      it("two instances adding one name at once keep one", async () => {
        const { a, b, close } = await twoInstances();
        try {
          const results = await Promise.all([
            a.add(record("race", 1)),
            b.add({ ...record("race", 2), definition: { url: "https://b.example/mcp" } }),
            a.add(record("race", 3)),
            b.add(record("race", 4)),
          ]);
          expect(results.filter(Boolean)).toHaveLength(1);
          expect(await a.list()).toHaveLength(1);
        } finally {
          await close();
        }
      });

      it("turning on or off raises the version; the stamp another instance polls changes with every change", async () => {
        const { a, b, close } = await twoInstances();
        try {
          const stamps = [await b.stamp()];
          await a.add(record("srv"));
          stamps.push(await b.stamp());
          expect(await a.setEnabled("srv", false, 5_000)).toBe(true);
          expect(await b.list()).toEqual([
            { ...record("srv"), enabled: false, updatedAt: 5_000, version: 2 },
          ]);
          stamps.push(await b.stamp());
          expect(await b.stamp()).toBe(stamps[2]);
          await a.setEnabled("srv", true, 5_000);
          stamps.push(await b.stamp());
          expect(await a.setEnabled("nobody", true, 6_000)).toBe(false);
          expect(await a.remove("srv")).toBe(true);
          stamps.push(await b.stamp());
          expect(await a.remove("srv")).toBe(false);
          // removed and added again (later): a new stamp
          await a.add(record("srv", 9_000));
          stamps.push(await b.stamp());
          // the poll compares each stamp with the one before
          for (let i = 1; i < stamps.length; i++)
            expect(stamps[i], `change ${i}`).not.toBe(stamps[i - 1]);
        } finally {
          await close();
        }
      });

      it("AppMcpServers on each instance: B's refresh sees A's add, switch and removal", async () => {
        const { a, b, close } = await twoInstances();
        try {
          const onA = new AppMcpServers({ records: a, env: {} });
          const onB = new AppMcpServers({ records: b, env: {} });
          let changes = 0;
          onB.onChange(() => changes++);
          await onB.refresh();
          expect(await onA.add("shared", { url: "https://example.com/mcp" }, ana)).toMatchObject({
            type: "added",
          });
          expect(await onB.refresh()).toBe(true);
          expect(await onB.entries()).toEqual({ shared: { url: "https://example.com/mcp" } });
          await onA.setEnabled("shared", false);
          expect(await onB.refresh()).toBe(true);
          expect(await onB.entries()).toEqual({
            shared: { url: "https://example.com/mcp", disabled: true },
          });
          await onA.remove("shared");
          expect(await onB.refresh()).toBe(true);
          expect(await onB.entries()).toEqual({});
          expect(changes).toBe(3);
        } finally {
          await close();
        }
      });

      it("a row whose definition is not JSON is named, not taken as an empty server", async () => {
        const { db } = await databases.store();
        await db.client.appMcpServer.create({
          data: {
            name: "broken",
            definition: "{ not json",
            enabled: true,
            addedAt: 1n,
            updatedAt: 1n,
            version: 1,
          },
        });
        await expect(new AppMcpServerTable(db).list()).rejects.toThrow(/broken/);
      });
    },
  );
}
