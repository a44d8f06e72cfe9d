import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isNativePartError } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { checkSqliteDriver } from "./sqlite-driver.js";

describe("checkSqliteDriver", () => {
  it("loads better-sqlite3 and runs a statement on this machine", () => {
    expect(() => checkSqliteDriver()).not.toThrow();
  });

  it("names better-sqlite3, the loader's cause and the fix when its addon does not load", () => {
    // a file that is no addon, loaded by the real driver's real loader
    const dir = mkdtempSync(join(tmpdir(), "arbor-sqlite-driver-"));
    const binding = join(dir, "better_sqlite3.node");
    writeFileSync(binding, "not an ELF file");
    let failure: unknown;
    try {
      checkSqliteDriver({ nativeBinding: binding });
    } catch (error) {
      failure = error;
    }
    expect(isNativePartError(failure)).toBe(true);
    if (!isNativePartError(failure)) return;
    expect(failure.part).toBe("better-sqlite3");
    expect(failure.reason).toContain(binding);
    expect(failure.fix).toMatch(/pnpm install --force/);
  });
});
