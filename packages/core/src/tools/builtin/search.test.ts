import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../../test/support/tool-test-context.js";
import { ToolError } from "../tool.js";
import {
  buildArgs,
  commandAvailable,
  createSearchTool,
  formatMatch,
  type SearchEngine,
  type SearchToolOptions,
} from "./search.js";

let base: string;
let root: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-search-")));
  root = path.join(base, "ws");
  await mkdir(root);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function put(rel: string, content: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), content);
}

function search(options: Omit<SearchToolOptions, "workspaceRoot"> = {}) {
  return createSearchTool({ workspaceRoot: root, ...options });
}

function text(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content[0]?.text ?? "";
}

const rgInstalled = await commandAvailable("rg");

/** The same behaviour is required of both engines; rg runs where it is installed. */
const engines: Array<{ engine: SearchEngine; available: boolean }> = [
  { engine: "rg", available: rgInstalled },
  { engine: "grep", available: true },
];

for (const { engine, available } of engines) {
  describe.skipIf(!available)(`search with ${engine}`, () => {
    const tool = (options: Omit<SearchToolOptions, "workspaceRoot" | "engine"> = {}) =>
      search({ ...options, engine });

    it(`REQ-052 finds matches as path:line: text, case-insensitive by default (${engine})`, async () => {
      await put("src/a.ts", "const Alpha = 1;\nconst beta = 2;\n");
      await put("src/b.md", "alpha in docs\n");
      await put("node_modules/x/index.js", "alpha hidden\n");
      await put(".git/config", "alpha hidden\n");
      await put("dist/out.js", "alpha hidden\n");
      const result = await tool().execute({ pattern: "alpha" }, createRecordingContext());
      expect(text(result).split("\n").sort()).toEqual([
        "src/a.ts:1: const Alpha = 1;",
        "src/b.md:1: alpha in docs",
      ]);
      expect(result.details).toEqual({ matches: 2, truncated: false, engine });
    });

    it(`REQ-052 honours include, path and case_sensitive (${engine})`, async () => {
      await put("src/a.ts", "const Alpha = 1;\nalpha();\n");
      await put("src/b.md", "alpha\n");
      await put("other/c.ts", "alpha\n");
      const result = await tool().execute(
        { pattern: "^alpha", path: "src", include: "*.ts", case_sensitive: true },
        createRecordingContext(),
      );
      expect(text(result)).toBe("src/a.ts:2: alpha();");
      const regex = await tool().execute(
        { pattern: "be+ta|gam{2}a", path: "src" },
        createRecordingContext(),
      );
      expect(text(regex)).toBe("No matches for /be+ta|gam{2}a/ in src");
    });

    it(`REQ-052 no matches is a normal result (${engine})`, async () => {
      await put("a.txt", "nothing here\n");
      const result = await tool().execute({ pattern: "absent" }, createRecordingContext());
      expect(text(result)).toBe("No matches for /absent/ in .");
      expect(result.details).toEqual({ matches: 0, truncated: false, engine });
    });

    it(`caps results with a truncation note (${engine})`, async () => {
      await put("many.txt", Array.from({ length: 500 }, (_, i) => `hit ${i}`).join("\n"));
      const result = await tool().execute({ pattern: "hit" }, createRecordingContext());
      const lines = text(result).split("\n");
      expect(lines).toHaveLength(201);
      expect(lines[0]).toBe("many.txt:1: hit 0");
      expect(lines[200]).toBe(
        "... (results truncated at 200 matches; narrow the pattern, path or include)",
      );
      expect(result.details).toEqual({ matches: 200, truncated: true, engine });
      const bytes = await tool({ maxOutputBytes: 100 }).execute(
        { pattern: "hit" },
        createRecordingContext(),
      );
      expect(bytes.details?.truncated).toBe(true);
      expect(bytes.details?.matches).toBeLessThan(10);
    });

    it(`reports an invalid regex as a failure (${engine})`, async () => {
      await put("a.txt", "x\n");
      const error = await tool()
        .execute({ pattern: "(unclosed" }, createRecordingContext())
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).message).toMatch(/^Search failed \(/);
    });
  });
}

describe("search engine choice and safety", () => {
  it("REQ-106 falls back to grep when rg is not installed", async () => {
    await put("a.txt", "needle\n");
    const tool = search({ rgCommand: path.join(base, "no-such-rg") });
    const result = await tool.execute({ pattern: "needle" }, createRecordingContext());
    expect(text(result)).toBe("a.txt:1: needle");
    expect(result.details?.engine).toBe("grep");
  });

  it.skipIf(!rgInstalled)("REQ-106 prefers rg when it is installed", async () => {
    await put("a.txt", "needle\n");
    const result = await search().execute({ pattern: "needle" }, createRecordingContext());
    expect(result.details?.engine).toBe("rg");
  });

  it("forcing rg when it is missing is a clear failure", async () => {
    const tool = search({ engine: "rg", rgCommand: path.join(base, "no-such-rg") });
    await expect(tool.execute({ pattern: "x" }, createRecordingContext())).rejects.toThrow(
      "is not available",
    );
  });

  it("REQ-106 checks cancellation before running and kills the search on abort", async () => {
    const aborted = createRecordingContext();
    aborted.controller.abort();
    await expect(search().execute({ pattern: "x" }, aborted)).rejects.toMatchObject({
      kind: "cancelled",
    });

    // a search that cannot finish on its own: grep reading a FIFO nobody writes to
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    const ctx = createRecordingContext();
    const run = search({ engine: "grep" }).execute({ pattern: "x", path: "pipe" }, ctx);
    setTimeout(() => ctx.controller.abort(), 200);
    const started = Date.now();
    await expect(run).rejects.toMatchObject({ kind: "cancelled" });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("refuses paths outside the workspace, including through symlinks", async () => {
    await mkdir(path.join(base, "outside"));
    await writeFile(path.join(base, "outside", "secret.txt"), "needle\n");
    await symlink(path.join(base, "outside"), path.join(root, "link"));
    for (const p of ["..", "link", path.join(base, "outside")]) {
      await expect(
        search().execute({ pattern: "needle", path: p }, createRecordingContext()),
      ).rejects.toThrow("outside the workspace root");
    }
    // a symlinked directory inside the tree is not followed by either engine
    const result = await search({ engine: "grep" }).execute(
      { pattern: "needle" },
      createRecordingContext(),
    );
    expect(text(result)).toBe("No matches for /needle/ in .");
  });

  it("builds engine arguments with the pattern after -e/--regexp and the path after --", () => {
    const params = { pattern: "-v", include: "*.ts", case_sensitive: true };
    const rg = buildArgs("rg", params, "src", ["node_modules"]);
    expect(rg.slice(-3)).toEqual(["--regexp=-v", "--", "src"]);
    expect(rg).toContain("--case-sensitive");
    expect(rg).toEqual(expect.arrayContaining(["--glob=*.ts", "--glob=!node_modules"]));
    const grep = buildArgs("grep", params, "src", ["node_modules"]);
    expect(grep.slice(-4)).toEqual(["-e", "-v", "--", "src"]);
    expect(grep).toEqual(expect.arrayContaining(["--include=*.ts", "--exclude-dir=node_modules"]));
    expect(grep).not.toContain("-i");
  });

  it("parses NUL-separated output, keeping colons in names and cutting long lines", () => {
    expect(formatMatch("./a:b.txt\u000012:x: y", 100)).toBe("a:b.txt:12: x: y");
    expect(formatMatch("f\u00001:abcdef", 3)).toBe("f:1: abc… (line truncated)");
    expect(formatMatch("garbage", 10)).toBeUndefined();
  });
});
