import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isNativePartError, NativePartError } from "../model/native-parts.js";
import { checkCodebaseParts } from "./native-check.js";

describe("checkCodebaseParts", () => {
  it("loads the watcher and parses with tree-sitter on this machine", async () => {
    await expect(checkCodebaseParts()).resolves.toBeUndefined();
  });

  it("names the part, the cause and the fix when a part's addon is missing", async () => {
    // an install whose @parcel/watcher lacks its build, as when its prebuilt package was skipped
    const install = mkdtempSync(join(tmpdir(), "arbor-native-check-"));
    const watcher = join(install, "node_modules", "@parcel", "watcher");
    mkdirSync(watcher, { recursive: true });
    writeFileSync(join(watcher, "package.json"), '{"name":"@parcel/watcher","main":"index.js"}');
    writeFileSync(
      join(watcher, "index.js"),
      'module.exports = require("./build/Release/watcher.node");',
    );
    writeFileSync(join(install, "index.js"), "");
    const failure = await checkCodebaseParts({ resolveFrom: join(install, "index.js") }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(NativePartError);
    expect(isNativePartError(failure)).toBe(true);
    const error = failure as NativePartError;
    expect(error.part).toBe("@parcel/watcher");
    expect(error.reason).toMatch(/Cannot find module '\.\/build\/Release\/watcher\.node'/);
    expect(error.fix).toMatch(/pnpm install --force/);
  });
});
