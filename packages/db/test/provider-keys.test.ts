import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Provider } from "../src/prisma-schema.js";
import { ProviderKeyTable } from "../src/provider-keys.js";
import { KEY_FILE_NAME, SecretBox, SecretBoxError, secretBoxOf } from "../src/secret-box.js";
import { pgAvailable, testDatabases } from "./stores.js";

// Provider keys at rest (issue #27): sealed with AES-256-GCM under the data directory's key file
// (made 0600 on first use), so neither the row nor the database file holds the key; a key file
// that is not the one the key was sealed with fails, saying so.

const KEY = "sk-ant-at-rest-0123456789abcdef";
const ana = { id: "u-ana", name: "Ana" };

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("the key file", () => {
  it("is made on first use, 0600, and read back the same after", () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-box-"));
    expect(secretBoxOf({ dataDir: dir, create: false })).toBeUndefined();
    const first = secretBoxOf({ dataDir: dir, create: true });
    const file = join(dir, KEY_FILE_NAME);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = secretBoxOf({ dataDir: dir, create: false });
    expect(again?.open(first?.seal("x", "c") ?? "", "c")).toBe("x");
    expect(Buffer.from(readFileSync(file, "utf8").trim(), "base64").length).toBe(32);
  });

  it("ARBOR_ENCRYPTION_KEY stands in for the file, and a short one is refused naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-box-"));
    const key = Buffer.alloc(32, 7).toString("base64");
    const box = secretBoxOf({ dataDir: dir, env: { ARBOR_ENCRYPTION_KEY: key }, create: true });
    expect(box?.source).toBe("ARBOR_ENCRYPTION_KEY");
    expect(readdirSync(dir)).toEqual([]);
    expect(() =>
      secretBoxOf({ dataDir: dir, env: { ARBOR_ENCRYPTION_KEY: "c2hvcnQ=" }, create: true }),
    ).toThrow(/ARBOR_ENCRYPTION_KEY must hold 32 bytes/);
  });

  it("a value sealed for one provider does not open as another's", () => {
    const box = new SecretBox(Buffer.alloc(32, 1), "test key");
    const sealed = box.seal(KEY, "anthropic");
    expect(sealed).not.toContain(KEY);
    expect(box.open(sealed, "anthropic")).toBe(KEY);
    expect(() => box.open(sealed, "openai")).toThrow(SecretBoxError);
  });
});

for (const provider of ["sqlite", "postgresql"] as const satisfies readonly Provider[]) {
  describe.skipIf(provider === "postgresql" && !pgAvailable())(
    `ProviderKeyTable (${provider})`,
    () => {
      const databases = testDatabases(provider);
      afterAll(() => databases.dispose());

      it("stores the key sealed: the row and the database's files hold only the hint", async () => {
        const { db, location } = await databases.store();
        const dir = mkdtempSync(join(tmpdir(), "arbor-box-"));
        const box = secretBoxOf({ dataDir: dir, create: true });
        if (box === undefined) throw new Error("no box");
        const table = new ProviderKeyTable(db);
        const kept = await table.set("anthropic", KEY, "…cdef", ana, box, 1_000);
        expect(kept).toEqual({ provider: "anthropic", hint: "…cdef", setBy: ana, setAt: 1_000 });
        const rows = await db.client.providerKey.findMany();
        expect(rows).toHaveLength(1);
        expect(
          JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? Number(v) : v)),
        ).not.toContain(KEY);
        expect(rows[0]?.sealed).toMatch(/^v1\./);
        expect(await table.list()).toEqual([kept]);
        expect(await table.open(box)).toEqual([{ ...kept, key: KEY }]);
        if (provider === "sqlite") {
          // the SQLite file, its WAL and journal
          for (const file of filesUnder(dirname(location))) {
            expect(readFileSync(file).includes(Buffer.from(KEY)), file).toBe(false);
          }
        }
        expect(await table.remove("anthropic")).toBe(true);
        expect(await table.remove("anthropic")).toBe(false);
        expect(await table.list()).toEqual([]);
      });

      it("a wrong key file fails clearly: the row says why, and never yields a key", async () => {
        const { db } = await databases.store();
        const mine = secretBoxOf({
          dataDir: mkdtempSync(join(tmpdir(), "arbor-box-")),
          create: true,
        });
        const theirsDir = mkdtempSync(join(tmpdir(), "arbor-box-"));
        const theirs = secretBoxOf({ dataDir: theirsDir, create: true });
        if (mine === undefined || theirs === undefined) throw new Error("no box");
        const table = new ProviderKeyTable(db);
        await table.set("openai", KEY, "…cdef", ana, mine);
        const [opened] = await table.open(theirs);
        expect(opened).not.toHaveProperty("key");
        expect(opened).toMatchObject({
          provider: "openai",
          problem: expect.stringContaining(join(theirsDir, KEY_FILE_NAME)),
        });
        expect((opened as { problem: string }).problem).toMatch(/sealed with another key/);
        const [none] = await table.open(undefined);
        expect(none).toMatchObject({ problem: expect.stringContaining("no key file") });
      });
    },
  );
}
