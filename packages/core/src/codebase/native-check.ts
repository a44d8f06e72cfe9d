import { createRequire } from "node:module";
import {
  isAbiMismatch,
  NativePartError,
  nativeLoadCause,
  rebuildCommand,
} from "../model/native-parts.js";
import { Grammars } from "./file-analysis.js";

// The codebase index's parts that are not JavaScript, loaded once at start so that a broken
// install is said then, with its fix, and not by the first codebase tool call (issue #29):
// @parcel/watcher's native addon (a prebuilt optional package per platform) and tree-sitter's
// WebAssembly runtime with one grammar.

/** What makes a package load again, at the repository's root. */
export function reinstallFix(part: string, error: unknown): string {
  return isAbiMismatch(error)
    ? `rebuild it for this Node.js: run \`${rebuildCommand(part)}\` at the repository's root with the Node.js that starts Arbor, or start Arbor with the Node.js it was built for`
    : `reinstall the dependencies (\`pnpm install --force\` at the repository's root, \`npm ci\` in an npm project): its files, or its prebuilt package for ${process.platform}-${process.arch}, are missing`;
}

export interface CodebasePartsOptions {
  /**
   * A file of @arbor/core the parts are resolved from, as the index resolves them (default this
   * module). The app bundles core, so it passes core's built worker entry.
   */
  resolveFrom?: string;
}

/**
 * Loads @parcel/watcher and parses a line of TypeScript with tree-sitter. Throws a
 * NativePartError naming the part, the cause and the fix.
 */
export async function checkCodebaseParts(options: CodebasePartsOptions = {}): Promise<void> {
  const load = createRequire(options.resolveFrom ?? import.meta.url);
  try {
    const watcher = load("@parcel/watcher") as typeof import("@parcel/watcher");
    if (typeof watcher.subscribe !== "function") throw new Error("it has no subscribe()");
  } catch (error) {
    throw new NativePartError(
      "@parcel/watcher",
      nativeLoadCause(error),
      reinstallFix("@parcel/watcher", error),
    );
  }
  try {
    const typescript = await new Grammars(load).forLanguage("typescript");
    const tree = typescript?.parser.parse("const ready = true;");
    if (tree?.rootNode.type !== "program") throw new Error("the TypeScript grammar parsed nothing");
    tree.delete();
  } catch (error) {
    throw new NativePartError(
      "@vscode/tree-sitter-wasm",
      nativeLoadCause(error),
      reinstallFix("@vscode/tree-sitter-wasm", error),
    );
  }
}
