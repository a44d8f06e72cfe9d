// The `REQ-…` ids cited in the repository's text files (docs/spec, which defines them, left
// out): single ids, and ranges written `REQ-109–113`, `REQ-109-113` or `REQ-001 through REQ-017`,
// each range counted as every id in it. Shared by scripts/spec-excerpts.mjs and
// packages/core/test/docs/req-ids.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const SKIPPED = new Set([
  "node_modules",
  ".git",
  ".next",
  "dist",
  ".tools",
  ".turbo",
  ".data",
  "test-results",
  "playwright-report",
  "generated",
  "bench-results",
]);
const TEXT = /\.(?:ts|tsx|mts|js|mjs|cjs|md|json|yaml|yml|css|html|txt)$/;

/** Every text file of the tree that may cite ids, repository-relative. */
export function citingFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) walk(path);
      } else if (entry.isFile() && TEXT.test(entry.name)) {
        const rel = relative(root, path);
        if (!rel.startsWith(join("docs", "spec"))) files.push(rel);
      }
    }
  };
  walk(root);
  return files.sort();
}

/** The ids a text cites, ranges expanded. */
export function reqIdsIn(text) {
  const ids = new Set();
  const pad = (n) => `REQ-${String(n).padStart(3, "0")}`;
  for (const m of text.matchAll(/REQ-(\d+)(?:\s*(?:–|-|through|to)\s*(?:REQ-)?(\d+))?/g)) {
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    for (let n = from; n <= Math.max(from, to); n++) ids.add(pad(n));
  }
  return ids;
}

/** Every id cited in the tree. */
export function reqIdsInTree(root) {
  const ids = new Set();
  for (const file of citingFiles(root)) {
    for (const id of reqIdsIn(readFileSync(join(root, file), "utf8"))) ids.add(id);
  }
  return ids;
}
