import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

// A fresh copy of test/fixtures/codebase/polyglot in a temporary directory, plus the files the
// index must skip (they cannot live in the repository: its own .gitignore drops them).

export const POLYGLOT = fileURLToPath(new URL("../fixtures/codebase/polyglot", import.meta.url));

export interface FixtureWorkspace {
  root: string;
  /** a directory for persisted indexes, outside the workspace */
  dataDir: string;
  write(rel: string, content: string | Buffer): void;
  remove(rel: string): void;
  dispose(): void;
}

export function polyglotWorkspace(): FixtureWorkspace {
  const base = mkdtempSync(path.join(tmpdir(), "arbor-codebase-"));
  const root = path.join(base, "ws");
  const dataDir = path.join(base, "data");
  cpSync(POLYGLOT, root, { recursive: true });
  const write = (rel: string, content: string | Buffer): void => {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  };
  write("node_modules/leftpad/index.js", "function leftPadFromNodeModules(s) { return s; }\n");
  write("dist/index.js", "function builtOutputFunction() {}\n");
  write("generated/schema.ts", "export const generatedSchemaThing = 1;\n");
  write("src/token.secret.ts", "export const ignoredByGitignore = 1;\n");
  write("src/blob.ts", Buffer.from([0x65, 0x78, 0x00, 0x01, 0x02]));
  write("src/huge.ts", `export const hugeFileConstant = "${"x".repeat(1_100_000)}";\n`);
  write("src/bundle.min.js", `function minifiedBundleFn(){${"var a=1;".repeat(4000)}}\n`);
  return {
    root,
    dataDir,
    write,
    remove: (rel) => rmSync(path.join(root, rel), { force: true }),
    dispose: () => rmSync(base, { recursive: true, force: true }),
  };
}
