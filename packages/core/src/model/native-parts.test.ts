import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  describeAbi,
  isAbiMismatch,
  isNativePartError,
  nativeLoadCause,
  rebuildCommand,
} from "./native-parts.js";

// The text Node.js 24 gave for better-sqlite3 built under Node.js 20 (issue #29's reproduction)
const NODE_24_ON_A_NODE_20_BUILD = `The module '/repo/node_modules/.pnpm/better-sqlite3@12.9.0/node_modules/better-sqlite3/build/Release/better_sqlite3.node'
was compiled against a different Node.js version using
NODE_MODULE_VERSION 115. This version of Node.js requires
NODE_MODULE_VERSION 137. Please try re-compiling or re-installing
the module (for instance, using \`npm rebuild\` or \`npm install\`).`;

describe("native load failures in words", () => {
  it("name both Node.js lines of an addon built for another one", () => {
    const error = Object.assign(new Error(NODE_24_ON_A_NODE_20_BUILD), {
      code: "ERR_DLOPEN_FAILED",
    });
    expect(isAbiMismatch(error)).toBe(true);
    expect(nativeLoadCause(error)).toBe(
      `it was built for NODE_MODULE_VERSION 115 (Node.js 20), and this is Node.js ${process.version} (NODE_MODULE_VERSION 137 (Node.js 24))`,
    );
  });

  it("keep the loader's first line otherwise", () => {
    const error = new Error("Cannot find module 'x'\nRequire stack:\n- /a.js");
    expect(isAbiMismatch(error)).toBe(false);
    expect(nativeLoadCause(error)).toBe("Cannot find module 'x'");
  });

  it("describe an ABI the table does not know by its number", () => {
    expect(describeAbi("999")).toBe("NODE_MODULE_VERSION 999");
  });

  it("recognise the error by its fields, whichever copy of the class made it", () => {
    const copy = Object.assign(new Error("x"), {
      name: "NativePartError",
      part: "better-sqlite3",
      reason: "r",
      fix: "f",
    });
    expect(isNativePartError(copy)).toBe(true);
    expect(isNativePartError(new Error("x"))).toBe(false);
  });
});

describe("rebuildCommand", () => {
  it("rebuilds with this Node.js's own headers when its install has them", () => {
    const prefix = dirname(dirname(process.execPath));
    const withHeaders = existsSync(join(prefix, "include", "node", "node_version.h"));
    expect(rebuildCommand("better-sqlite3")).toBe(
      `${withHeaders ? `npm_config_nodedir=${prefix} ` : ""}pnpm rebuild better-sqlite3`,
    );
  });
});
