import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NativePartError } from "@arbor/core";
import { checkSqliteDriver } from "@arbor/db";
import { describe, expect, it } from "vitest";
import { StartRefused } from "@/lib/server/runtime";
import { cannotStart, checkNativeParts } from "@/lib/server/start-check";

// Issue #29: a start that cannot work says so, with the cause and the fix, and exits
// (instrumentation.ts prints cannotStart's text and exits 1). The real start under Node.js 24 with
// a Node.js 20 build of better-sqlite3: e2e/security/native-start.spec.ts.

describe("the start check", () => {
  it("finds every native part loading on this machine", async () => {
    await expect(checkNativeParts()).resolves.toBeUndefined();
  });

  it("says which part does not load, why, and the fix, for a real failed load", () => {
    const binding = join(mkdtempSync(join(tmpdir(), "arbor-start-check-")), "better_sqlite3.node");
    writeFileSync(binding, "not an addon");
    let failure: unknown;
    try {
      checkSqliteDriver({ nativeBinding: binding });
    } catch (error) {
      failure = error;
    }
    const text = cannotStart(failure);
    expect(text).toMatch(
      /^Arbor cannot start: better-sqlite3 does not load: .*better_sqlite3\.node/,
    );
    expect(text).toMatch(/\nFix: reinstall it/);
  });

  it("names both Node.js lines and the rebuild for an addon built for another Node.js", () => {
    const text = cannotStart(
      new NativePartError(
        "better-sqlite3",
        "it was built for NODE_MODULE_VERSION 115 (Node.js 20), and this is Node.js v24.21.0 (NODE_MODULE_VERSION 137 (Node.js 24))",
        "rebuild it for this Node.js: run `pnpm rebuild better-sqlite3`",
      ),
    );
    expect(text).toBe(
      "Arbor cannot start: better-sqlite3 does not load: it was built for NODE_MODULE_VERSION 115 (Node.js 20), and this is Node.js v24.21.0 (NODE_MODULE_VERSION 137 (Node.js 24)).\nFix: rebuild it for this Node.js: run `pnpm rebuild better-sqlite3`.",
    );
  });

  it("refuses a start the configuration does not allow, and lets a passing failure be retried", () => {
    expect(
      cannotStart(new StartRefused("serving beyond loopback needs a real sign-in method")),
    ).toBe("Arbor cannot start: serving beyond loopback needs a real sign-in method.");
    expect(cannotStart(new Error("connect ECONNREFUSED 127.0.0.1:5432"))).toBeUndefined();
  });
});
