import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../../test/support/tool-test-context.js";
import { ToolError } from "../tool.js";
import { createWriteFileTool } from "./write-file.js";

let base: string;
let root: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-write-")));
  root = path.join(base, "ws");
  await mkdir(root);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const tool = () => createWriteFileTool({ workspaceRoot: root });

async function failure(run: Promise<unknown>): Promise<ToolError> {
  const error = await run.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe("write_file", () => {
  it("REQ-049 creates parent directories and reports path and bytes", async () => {
    const result = await tool().execute(
      { path: "deep/er/new.txt", content: "héllo\n" },
      createRecordingContext(),
    );
    expect(await readFile(path.join(root, "deep/er/new.txt"), "utf8")).toBe("héllo\n");
    expect(result.details).toEqual({
      path: "deep/er/new.txt",
      bytes: 7,
      diff: {
        path: "deep/er/new.txt",
        change: "create",
        added: 1,
        removed: 0,
        hunks: [{ old_start: 0, old_lines: 0, new_start: 1, new_lines: 1, lines: ["+héllo"] }],
      },
    });
    expect(result.content).toEqual([{ type: "text", text: "Created deep/er/new.txt (7 bytes)" }]);
  });

  it("REQ-049 overwrites an existing file", async () => {
    await writeFile(path.join(root, "a.txt"), "old content");
    const result = await tool().execute(
      { path: "a.txt", content: "new" },
      createRecordingContext(),
    );
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("new");
    expect(result.content[0]).toEqual({ type: "text", text: "Overwrote a.txt (3 bytes)" });
  });

  it("REQ-104 checks cancellation before writing", async () => {
    const ctx = createRecordingContext();
    ctx.controller.abort();
    const error = await failure(tool().execute({ path: "a.txt", content: "x" }, ctx));
    expect(error.kind).toBe("cancelled");
    expect(existsSync(path.join(root, "a.txt"))).toBe(false);
  });

  it("refuses to create files through a symlink pointing outside, or via ..", async () => {
    await mkdir(path.join(base, "outside"));
    await symlink(path.join(base, "outside"), path.join(root, "out"));
    for (const p of ["out/evil.txt", "../evil.txt", path.join(base, "evil.txt")]) {
      const error = await failure(
        tool().execute({ path: p, content: "x" }, createRecordingContext()),
      );
      expect(error.message).toContain("outside the workspace root");
    }
    expect(existsSync(path.join(base, "outside", "evil.txt"))).toBe(false);
    expect(existsSync(path.join(base, "evil.txt"))).toBe(false);
  });

  it("fails cleanly when the path is a directory or goes through a file", async () => {
    await mkdir(path.join(root, "dir"));
    await writeFile(path.join(root, "file.txt"), "x");
    expect(
      (await failure(tool().execute({ path: "dir", content: "x" }, createRecordingContext())))
        .message,
    ).toBe("Is a directory, not a file: dir");
    const through = await failure(
      tool().execute({ path: "file.txt/child.txt", content: "x" }, createRecordingContext()),
    );
    expect(through.message).toMatch(/^(Not a directory|I\/O error).*file\.txt/);
  });
});

describe("write_file's approval preview (issue #27)", () => {
  it("shows a new file as its content, and an existing one as the diff from the disk", async () => {
    expect(await tool().describeCall?.({ path: "src/new.ts", content: "a\nb\n" })).toEqual({
      kind: "file_change",
      path: "src/new.ts",
      diff: {
        path: "src/new.ts",
        change: "create",
        added: 2,
        removed: 0,
        hunks: [{ old_start: 0, old_lines: 0, new_start: 1, new_lines: 2, lines: ["+a", "+b"] }],
      },
    });
    await writeFile(path.join(root, "old.txt"), "one\ntwo\n");
    const preview = await tool().describeCall?.({ path: "old.txt", content: "one\n2\n" });
    expect(preview).toMatchObject({
      kind: "file_change",
      path: "old.txt",
      diff: { change: "edit", added: 1, removed: 1 },
    });
    expect(preview?.kind === "file_change" && preview.diff?.hunks[0]?.lines).toEqual([
      " one",
      "-two",
      "+2",
    ]);
    // nothing was written by the preview
    expect(existsSync(path.join(root, "src/new.ts"))).toBe(false);
    expect(await readFile(path.join(root, "old.txt"), "utf8")).toBe("one\ntwo\n");
  });

  it("never reads outside the workspace: a symlink out of it is a problem, not a diff", async () => {
    await writeFile(path.join(base, "outside.txt"), "secret outside\n");
    await symlink(path.join(base, "outside.txt"), path.join(root, "link.txt"));
    const preview = await tool().describeCall?.({ path: "link.txt", content: "x\n" });
    expect(preview).toMatchObject({ kind: "file_change", path: "link.txt" });
    expect(preview?.kind === "file_change" && preview.problem).toContain(
      "outside the workspace root",
    );
    expect(JSON.stringify(preview)).not.toContain("secret outside");
    const absolute = await tool().describeCall?.({
      path: path.join(base, "outside.txt"),
      content: "x",
    });
    expect(JSON.stringify(absolute)).not.toContain("secret outside");
    expect(await tool().describeCall?.({ path: 3 })).toBeUndefined();
  });

  it("the applied diff is what the call wrote over the file", async () => {
    await writeFile(path.join(root, "a.txt"), "keep\nold\n");
    const result = await tool().execute(
      { path: "a.txt", content: "keep\nnew\n" },
      createRecordingContext(),
    );
    expect(result.details?.diff?.hunks[0]?.lines).toEqual([" keep", "-old", "+new"]);
  });
});
