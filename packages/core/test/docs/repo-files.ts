import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

// The repository's files, for the tests that keep docs/ true (test/docs/*.test.ts).

export const REPO = fileURLToPath(new URL("../../../../", import.meta.url));

export function readRepoFile(path: string): string {
  return readFileSync(join(REPO, path), "utf8");
}

const SKIPPED_DIRS = new Set([
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
  "coverage",
]);

/** Repository-relative paths of the files under `dir` whose names match `name`. */
export function repoFiles(dir: string, name: RegExp): string[] {
  const found: string[] = [];
  const walk = (absolute: string): void => {
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(".sessions-doc-")) {
          walk(join(absolute, entry.name));
        }
      } else if (entry.isFile() && name.test(entry.name)) {
        found.push(relative(REPO, join(absolute, entry.name)));
      }
    }
  };
  const root = join(REPO, dir);
  if (statSync(root, { throwIfNoEntry: false })?.isDirectory()) walk(root);
  return found.sort();
}
