import { afterAll, describe, expect, it } from "vitest";
import { createStore } from "../src/create-store.js";
import type { Provider } from "../src/prisma-schema.js";
import { monthOf, TokenBudgets } from "../src/token-budgets.js";
import { pgAvailable, testDatabases } from "./stores.js";

// Per-person monthly token budgets on both databases: set, lift, count, a new month starts at
// zero, and two instances (two connections to one database) counting at once lose nothing.

const ana = { id: "u-ana", name: "Ana" };

for (const provider of ["sqlite", "postgresql"] as const satisfies readonly Provider[]) {
  describe.skipIf(provider === "postgresql" && !pgAvailable())(`TokenBudgets (${provider})`, () => {
    const databases = testDatabases(provider);
    afterAll(() => databases.dispose());

    it("has no budget until one is set; set, counted, lifted", async () => {
      const { db } = await databases.store();
      const now = new Date("2026-11-27T12:00:00Z");
      const budgets = new TokenBudgets(db, { now: () => now });
      expect(await budgets.view("u-ana")).toEqual({
        person_id: "u-ana",
        monthly_tokens: null,
        used_tokens: 0,
        month: "2026-11",
      });
      expect(await budgets.remaining(ana)).toBeUndefined();
      await budgets.record(ana, 120);
      await budgets.record(ana, 30);
      expect((await budgets.set("u-ana", 5_000_000_000)).monthly_tokens).toBe(5_000_000_000);
      expect(await budgets.remaining(ana)).toEqual({
        monthlyTokens: 5_000_000_000,
        usedTokens: 150,
      });
      expect((await budgets.set("u-ana", null)).monthly_tokens).toBeNull();
      expect(await budgets.remaining(ana)).toBeUndefined();
      // SQLite reads the budget on the direct connection: the same answers as through Prisma
      if (provider === "sqlite") expect(db.direct).toBeDefined();
      await budgets.set("u-ana", 1_000);
      await budgets.record(ana, 5);
      expect(await budgets.remaining(ana)).toEqual({ monthlyTokens: 1_000, usedTokens: 155 });
      expect(await budgets.remaining({ id: "u-nobody", name: "N" })).toBeUndefined();
      await budgets.set("u-ana", null);
      // a new calendar month (UTC) starts from zero
      now.setTime(Date.parse("2026-12-01T00:00:00Z"));
      expect(await budgets.view("u-ana")).toMatchObject({ month: "2026-12", used_tokens: 0 });
      await budgets.set("u-ana", 10);
      expect(await budgets.remaining(ana)).toEqual({ monthlyTokens: 10, usedTokens: 0 });
    });

    it("two instances counting at once add up exactly", async () => {
      const url = await databases.fresh();
      const a = await createStore({ databaseUrl: url, skipMigrations: true });
      const b = await createStore({ databaseUrl: url, skipMigrations: true });
      try {
        const first = new TokenBudgets(a.db);
        const second = new TokenBudgets(b.db);
        await Promise.all(
          Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? first : second).record(ana, 7)),
        );
        expect((await first.view("u-ana")).used_tokens).toBe(280);
        expect((await second.view("u-ana")).month).toBe(monthOf(new Date()));
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}
