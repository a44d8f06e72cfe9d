import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../../test/support/tool-test-context.js";
import { ToolError } from "../tool.js";
import { countLines, createEditFileTool, locate } from "./edit-file.js";

let base: string;
let root: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-edit-")));
  root = path.join(base, "ws");
  await mkdir(root);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const tool = () => createEditFileTool({ workspaceRoot: root });
const file = (name: string) => path.join(root, name);

async function failure(run: Promise<unknown>): Promise<ToolError> {
  const error = await run.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

const SOURCE = [
  "function add(a, b) {",
  "  return a + b;",
  "}",
  "",
  "function sub(a, b) {",
  "  return a - b;",
  "}",
  "",
].join("\n");

describe("edit_file", () => {
  it("REQ-050 replaces the one occurrence and reports line counts", async () => {
    await writeFile(file("math.js"), SOURCE);
    const result = await tool().execute(
      {
        path: "math.js",
        old_text: "  return a - b;\n",
        new_text: "  const d = a - b;\n  return d;\n",
      },
      createRecordingContext(),
    );
    expect(await readFile(file("math.js"), "utf8")).toBe(
      SOURCE.replace("  return a - b;\n", "  const d = a - b;\n  return d;\n"),
    );
    expect(result.content[0]).toEqual({
      type: "text",
      text: "Edited math.js: replaced 1 line with 2 lines at line 6.",
    });
    expect(result.details).toMatchObject({ path: "math.js", old_lines: 1, new_lines: 2 });
    // the applied diff: what the call changed, with its line numbers
    expect(result.details?.diff).toEqual({
      path: "math.js",
      change: "edit",
      added: 2,
      removed: 1,
      hunks: [
        {
          old_start: 3,
          old_lines: 5,
          new_start: 3,
          new_lines: 6,
          lines: [
            " }",
            " ",
            " function sub(a, b) {",
            "-  return a - b;",
            "+  const d = a - b;",
            "+  return d;",
            " }",
          ],
        },
      ],
    });
  });

  it("inserts replacement text literally, $ patterns included", async () => {
    await writeFile(file("a.txt"), "price: X\n");
    await tool().execute(
      { path: "a.txt", old_text: "X", new_text: "$& $1 $$" },
      createRecordingContext(),
    );
    expect(await readFile(file("a.txt"), "utf8")).toBe("price: $& $1 $$\n");
  });

  it("REQ-102 refuses an ambiguous old_text, saying how many locations match", async () => {
    await writeFile(file("math.js"), SOURCE);
    const error = await failure(
      tool().execute(
        { path: "math.js", old_text: "(a, b) {", new_text: "(x, y) {" },
        createRecordingContext(),
      ),
    );
    expect(error.kind).toBe("failed");
    expect(error.message).toBe(
      "old_text matches 2 locations in math.js. Include more context to make it unique.",
    );
    expect(await readFile(file("math.js"), "utf8")).toBe(SOURCE);
  });

  it("REQ-101 hints at whitespace-different text with Did you mean", async () => {
    await writeFile(file("math.js"), SOURCE);
    const error = await failure(
      tool().execute(
        { path: "math.js", old_text: "function sub(a, b) {\n    return a - b;", new_text: "x" },
        createRecordingContext(),
      ),
    );
    expect(error.message).toBe(
      "old_text not found in math.js. Did you mean:\nfunction sub(a, b) {\n  return a - b;\n(lines 5-6 of the file)",
    );
  });

  it("REQ-101 hints at the most similar line for a near miss, and gives advice when nothing is close", async () => {
    await writeFile(file("math.js"), SOURCE);
    const near = await failure(
      tool().execute(
        { path: "math.js", old_text: "  return a + c;", new_text: "x" },
        createRecordingContext(),
      ),
    );
    expect(near.message).toBe(
      "old_text not found in math.js. Did you mean:\n  return a + b;\n(lines 2-2 of the file)",
    );
    const far = await failure(
      tool().execute(
        { path: "math.js", old_text: "class Zebra extends Horse", new_text: "x" },
        createRecordingContext(),
      ),
    );
    expect(far.message).toBe(
      "old_text not found in math.js. Check whitespace and indentation, or read the file again.",
    );
  });

  it("preserves CRLF line endings when old_text and new_text are written with LF", async () => {
    await writeFile(file("win.txt"), "one\r\ntwo\r\nthree\r\n");
    const result = await tool().execute(
      { path: "win.txt", old_text: "one\ntwo\n", new_text: "uno\ndos\nextra\n" },
      createRecordingContext(),
    );
    expect(await readFile(file("win.txt"), "utf8")).toBe("uno\r\ndos\r\nextra\r\nthree\r\n");
    expect(result.details).toMatchObject({ path: "win.txt", old_lines: 2, new_lines: 3 });
  });

  it("keeps LF files LF when old_text arrives with CRLF", () => {
    expect(locate("a\nb\n", "a\r\nb", "x\r\ny")).toEqual({
      type: "one",
      index: 0,
      oldText: "a\nb",
      newText: "x\ny",
    });
  });

  it("counts overlapping occurrences as ambiguous", () => {
    expect(locate("aaa", "aa", "b")).toEqual({ type: "many", count: 2 });
  });

  it("REQ-103 checks cancellation before reading", async () => {
    await writeFile(file("a.txt"), "hello");
    const ctx = createRecordingContext();
    ctx.controller.abort();
    const error = await failure(
      tool().execute({ path: "a.txt", old_text: "hello", new_text: "bye" }, ctx),
    );
    expect(error.kind).toBe("cancelled");
    expect(await readFile(file("a.txt"), "utf8")).toBe("hello");
  });

  it("fails cleanly for missing files, identical texts and escapes", async () => {
    expect(
      (
        await failure(
          tool().execute(
            { path: "nope.txt", old_text: "a", new_text: "b" },
            createRecordingContext(),
          ),
        )
      ).message,
    ).toBe("File not found: nope.txt");
    await writeFile(file("a.txt"), "hello");
    expect(
      (
        await failure(
          tool().execute(
            { path: "a.txt", old_text: "hello", new_text: "hello" },
            createRecordingContext(),
          ),
        )
      ).message,
    ).toBe("old_text and new_text are identical; nothing to change.");
    await writeFile(path.join(base, "outside.txt"), "hello");
    await symlink(path.join(base, "outside.txt"), file("link.txt"));
    const escaped = await failure(
      tool().execute(
        { path: "link.txt", old_text: "hello", new_text: "pwned" },
        createRecordingContext(),
      ),
    );
    expect(escaped.message).toContain("outside the workspace root");
    expect(await readFile(path.join(base, "outside.txt"), "utf8")).toBe("hello");
  });

  it("countLines ignores a trailing line break", () => {
    expect(countLines("")).toBe(0);
    expect(countLines("a")).toBe(1);
    expect(countLines("a\n")).toBe(1);
    expect(countLines("a\r\nb")).toBe(2);
  });
});

describe("edit_file's approval preview (issue #27)", () => {
  it("is the diff against the file on disk, with line numbers, and changes nothing", async () => {
    await writeFile(file("math.js"), SOURCE);
    const preview = await tool().describeCall?.({
      path: "math.js",
      old_text: "  return a - b;",
      new_text: "  return b - a;",
    });
    expect(preview).toEqual({
      kind: "file_change",
      path: "math.js",
      diff: {
        path: "math.js",
        change: "edit",
        added: 1,
        removed: 1,
        hunks: [
          {
            old_start: 3,
            old_lines: 5,
            new_start: 3,
            new_lines: 5,
            lines: [
              " }",
              " ",
              " function sub(a, b) {",
              "-  return a - b;",
              "+  return b - a;",
              " }",
            ],
          },
        ],
      },
    });
    expect(await readFile(file("math.js"), "utf8")).toBe(SOURCE);
  });

  it("says why the edit would fail, in the words the model would get", async () => {
    await writeFile(file("math.js"), SOURCE);
    expect(
      await tool().describeCall?.({ path: "math.js", old_text: "(a, b) {", new_text: "(x) {" }),
    ).toEqual({
      kind: "file_change",
      path: "math.js",
      problem: "old_text matches 2 locations in math.js. Include more context to make it unique.",
    });
    expect(await tool().describeCall?.({ path: "gone.js", old_text: "a", new_text: "b" })).toEqual({
      kind: "file_change",
      path: "gone.js",
      problem: "File not found: gone.js",
    });
    // arguments the tool would refuse describe nothing
    expect(await tool().describeCall?.({ path: "math.js" })).toBeUndefined();
  });

  it("never reads outside the workspace, through a symlink or a .. path", async () => {
    await writeFile(path.join(base, "outside.txt"), "hello outside\n");
    await symlink(path.join(base, "outside.txt"), file("link.txt"));
    for (const target of ["link.txt", "../outside.txt", path.join(base, "outside.txt")]) {
      const preview = await tool().describeCall?.({
        path: target,
        old_text: "hello",
        new_text: "bye",
      });
      expect(preview?.kind === "file_change" && preview.problem).toContain(
        "outside the workspace root",
      );
      expect(JSON.stringify(preview)).not.toContain("hello outside");
    }
  });
});
