import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sampleSession } from "@arbor/core/store-contract-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { createStore } from "../src/create-store.js";
import { DEFAULT_SQLITE_FILE } from "../src/database-url.js";

// The SQLite database and its -wal / -shm are readable by their owner only (issue #24): made so
// whatever the umask, and tightened when an older version left them 0644.

const tmp = mkdtempSync(join(tmpdir(), "arbor-modes-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;

async function withUmask<T>(mask: number, run: () => Promise<T>): Promise<T> {
  const saved = process.umask(mask);
  try {
    return await run();
  } finally {
    process.umask(saved);
  }
}

describe("SQLite file modes", () => {
  it("a new database, its -wal and -shm are 0600 and a new folder 0700, even under umask 000", async () => {
    const dataDir = join(tmp, "fresh", ".data");
    await withUmask(0o000, async () => {
      const opened = await createStore({ dataDir, logger: { warn: () => {} } });
      try {
        const { session, branch } = sampleSession("s");
        await opened.store.createSession(session, branch);
        const file = join(dataDir, DEFAULT_SQLITE_FILE);
        expect(existsSync(`${file}-wal`)).toBe(true);
        expect(existsSync(`${file}-shm`)).toBe(true);
        expect(modeOf(file).toString(8)).toBe("600");
        expect(modeOf(`${file}-wal`).toString(8)).toBe("600");
        expect(modeOf(`${file}-shm`).toString(8)).toBe("600");
        expect(modeOf(dataDir).toString(8)).toBe("700");
      } finally {
        await opened.close();
      }
    });
  });

  it("a database an older version left 0644 is 0600 after the next start", async () => {
    const dataDir = join(tmp, "older");
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, DEFAULT_SQLITE_FILE);
    const first = await createStore({ dataDir, logger: { warn: () => {} } });
    await first.close();
    chmodSync(file, 0o644);
    writeFileSync(`${file}-journal`, "");
    chmodSync(`${file}-journal`, 0o644);
    const second = await createStore({ dataDir, logger: { warn: () => {} } });
    try {
      expect(modeOf(file).toString(8)).toBe("600");
      expect(modeOf(`${file}-journal`).toString(8)).toBe("600");
    } finally {
      await second.close();
    }
  });
});
