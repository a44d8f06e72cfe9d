import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../../test/support/tool-test-context.js";
import { ToolError } from "../tool.js";
import { globToRegExp } from "./glob.js";
import { createListFilesTool, type ListFilesToolOptions } from "./list-files.js";

let base: string;
let root: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-list-")));
  root = path.join(base, "ws");
  await mkdir(root);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function list(options: Omit<ListFilesToolOptions, "workspaceRoot"> = {}) {
  return createListFilesTool({ workspaceRoot: root, ...options });
}

async function touch(rel: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), "");
}

function text(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content[0]?.text ?? "";
}

describe("list_files", () => {
  it("REQ-051 lists recursively, sorted, directories with a slash, skipping excluded dirs", async () => {
    for (const f of [
      "b.ts",
      "a.md",
      "src/index.ts",
      "src/util/x.ts",
      "node_modules/pkg/index.js",
      ".git/HEAD",
      "dist/out.js",
      "target/debug/bin",
      ".next/cache",
      ".turbo/cookies/1.cookie",
      ".cache/x.json",
    ]) {
      await touch(f);
    }
    const result = await list().execute({}, createRecordingContext());
    expect(text(result)).toBe(
      ["a.md", "b.ts", "src/", "src/index.ts", "src/util/", "src/util/x.ts"].join("\n"),
    );
    expect(result.details).toEqual({ total: 6, truncated: false });
  });

  it("REQ-051 filters names with a glob pattern and limits depth", async () => {
    for (const f of ["a.ts", "b.js", "src/c.ts", "src/deep/d.ts", "src/e.json"]) await touch(f);
    const ts = await list().execute({ pattern: "*.ts" }, createRecordingContext());
    expect(text(ts)).toBe("a.ts\nsrc/c.ts\nsrc/deep/d.ts");
    const shallow = await list().execute({ path: "src", max_depth: 1 }, createRecordingContext());
    expect(text(shallow)).toBe("src/c.ts\nsrc/deep/\nsrc/e.json");
    const braces = await list().execute({ pattern: "*.{js,json}" }, createRecordingContext());
    expect(text(braces)).toBe("b.js\nsrc/e.json");
  });

  it("REQ-105 truncates at max_results with a line saying how many were omitted", async () => {
    await mkdir(path.join(root, "many"));
    await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        writeFile(path.join(root, "many", `f${String(i).padStart(3, "0")}.txt`), ""),
      ),
    );
    const result = await list().execute({ path: "many" }, createRecordingContext());
    const lines = text(result).split("\n");
    expect(lines).toHaveLength(201);
    expect(lines[0]).toBe("many/f000.txt");
    expect(lines[199]).toBe("many/f199.txt");
    expect(lines[200]).toBe(
      "... (300 more entries omitted; narrow with path, pattern or max_depth)",
    );
    expect(result.details).toEqual({ total: 500, truncated: true });
  });

  it("REQ-105 gives up after the timeout", async () => {
    for (let i = 0; i < 20; i++) await touch(`d${i}/f.txt`);
    const error = await list({ timeoutMs: 0 })
      .execute({}, createRecordingContext())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toMatch(/^list_files timed out after 0s/);
  });

  it("REQ-105 stops on cancellation", async () => {
    await touch("a.txt");
    const ctx = createRecordingContext();
    ctx.controller.abort();
    await expect(list().execute({}, ctx)).rejects.toMatchObject({ kind: "cancelled" });
  });

  it("does not follow symlinks and refuses paths outside the workspace", async () => {
    await mkdir(path.join(base, "outside"));
    await writeFile(path.join(base, "outside", "secret.txt"), "");
    await symlink(path.join(base, "outside"), path.join(root, "link"));
    const result = await list().execute({}, createRecordingContext());
    expect(text(result)).toBe("link");
    await expect(list().execute({ path: "link" }, createRecordingContext())).rejects.toThrow(
      "outside the workspace root",
    );
    await expect(list().execute({ path: ".." }, createRecordingContext())).rejects.toThrow(
      "outside the workspace root",
    );
  });

  it("reports empty directories, missing paths and files", async () => {
    expect(text(await list().execute({}, createRecordingContext()))).toBe("No entries found in .");
    await expect(list().execute({ path: "nope" }, createRecordingContext())).rejects.toThrow(
      "File not found: nope",
    );
    await touch("file.txt");
    await expect(list().execute({ path: "file.txt" }, createRecordingContext())).rejects.toThrow(
      "Not a directory: file.txt",
    );
  });
});

describe("globToRegExp", () => {
  it("supports *, ?, classes and braces, anchored", () => {
    expect(globToRegExp("*.ts").test("index.ts")).toBe(true);
    expect(globToRegExp("*.ts").test("index.tsx")).toBe(false);
    expect(globToRegExp("?.md").test("a.md")).toBe(true);
    expect(globToRegExp("?.md").test("ab.md")).toBe(false);
    expect(globToRegExp("[abc]*").test("beta")).toBe(true);
    expect(globToRegExp("[!abc]*").test("beta")).toBe(false);
    expect(globToRegExp("*.{js,json}").test("x.json")).toBe(true);
    expect(globToRegExp("*.{js,json}").test("x.jsx")).toBe(false);
    expect(globToRegExp("a+b(1).txt").test("a+b(1).txt")).toBe(true);
    expect(globToRegExp("[oops").test("[oops")).toBe(true);
  });
});
