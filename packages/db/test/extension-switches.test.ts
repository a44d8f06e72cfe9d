import { ExtensionSwitches } from "@arbor/core";
import { afterAll, describe, expect, it } from "vitest";
import { createStore } from "../src/create-store.js";
import { ExtensionSwitchTable } from "../src/extension-switches.js";
import type { Provider } from "../src/prisma-schema.js";
import { pgAvailable, testDatabases } from "./stores.js";

// Skills and sub-agents switched off in Settings (issue #27, decision 0057), on both databases.
// "Two instances" are two stores (two pools) on one database, each with its own switches.

const ANA = { id: "u-ana", name: "Ana" };
const BO = { id: "u-bo", name: "Bo" };
const quiet = { warn: () => {} };

for (const provider of ["sqlite", "postgresql"] as const satisfies readonly Provider[]) {
  describe.skipIf(provider === "postgresql" && !pgAvailable())(
    `ExtensionSwitchTable (${provider})`,
    () => {
      const databases = testDatabases(provider);
      afterAll(() => databases.dispose());

      it("keeps the first switch-off, lists it, and switches it on again", async () => {
        const { db } = await databases.store();
        const table = new ExtensionSwitchTable(db);
        expect(await table.list()).toEqual([]);
        await table.disable({ kind: "skill", name: "deploy", by: ANA, at: 1_000 });
        // twice (two admins at once): the first record stays, nothing fails
        await Promise.all([
          table.disable({ kind: "skill", name: "deploy", by: BO, at: 2_000 }),
          table.disable({ kind: "agent", name: "deploy", by: BO, at: 3_000 }),
        ]);
        expect(await table.list()).toEqual([
          { kind: "agent", name: "deploy", by: BO, at: 3_000 },
          { kind: "skill", name: "deploy", by: ANA, at: 1_000 },
        ]);
        expect(await table.enable("skill", "deploy")).toBe(true);
        expect(await table.enable("skill", "deploy")).toBe(false);
        expect((await table.list()).map((e) => [e.kind, e.name])).toEqual([["agent", "deploy"]]);
      });

      it("a switch made through one instance is read by another", async () => {
        const url = await databases.fresh();
        const one = await createStore({ databaseUrl: url, skipMigrations: true, logger: quiet });
        const two = await createStore({ databaseUrl: url, skipMigrations: true, logger: quiet });
        try {
          const here = new ExtensionSwitches({ records: new ExtensionSwitchTable(one.db) });
          const there = new ExtensionSwitches({ records: new ExtensionSwitchTable(two.db) });
          await Promise.all([here.refresh(), there.refresh()]);
          await here.set("agent", "researcher", false, ANA);
          expect(there.isEnabled("agent", "researcher")).toBe(true);
          await there.refresh();
          expect(there.disabled("agent", "researcher")?.by).toEqual(ANA);
          await there.set("agent", "researcher", true, BO);
          await here.refresh();
          expect(here.isEnabled("agent", "researcher")).toBe(true);
        } finally {
          await one.close();
          await two.close();
        }
      });
    },
  );
}
