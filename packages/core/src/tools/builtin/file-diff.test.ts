import { describe, expect, it } from "vitest";
import { fileDiff, MAX_DIFF_LINES } from "./file-diff.js";

const lines = (n: number, prefix = "line") =>
  Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join("");

describe("fileDiff", () => {
  it("shows one changed line with three lines of context and its line numbers", () => {
    const before = lines(10);
    const after = before.replace("line 6\n", "line six\n");
    expect(fileDiff("src/a.ts", before, after)).toEqual({
      path: "src/a.ts",
      change: "edit",
      added: 1,
      removed: 1,
      hunks: [
        {
          old_start: 3,
          old_lines: 7,
          new_start: 3,
          new_lines: 7,
          lines: [
            " line 3",
            " line 4",
            " line 5",
            "-line 6",
            "+line six",
            " line 7",
            " line 8",
            " line 9",
          ],
        },
      ],
    });
  });

  it("shows a new file as one hunk of added lines", () => {
    expect(fileDiff("new.md", undefined, "# Title\n\nText\n")).toEqual({
      path: "new.md",
      change: "create",
      added: 3,
      removed: 0,
      hunks: [
        {
          old_start: 0,
          old_lines: 0,
          new_start: 1,
          new_lines: 3,
          lines: ["+# Title", "+", "+Text"],
        },
      ],
    });
  });

  it("keeps far-apart changes in separate hunks", () => {
    const before = lines(40);
    const after = before.replace("line 2\n", "line two\n").replace("line 35\n", "");
    const diff = fileDiff("a.txt", before, after);
    expect(diff.hunks.map((h) => [h.old_start, h.new_start])).toEqual([
      [1, 1],
      [32, 32],
    ]);
    expect(diff).toMatchObject({ added: 1, removed: 2 });
  });

  it("does not count line endings as changes, and shows lines without their \\r", () => {
    const diff = fileDiff("win.txt", "one\r\ntwo\r\n", "one\ntwo\nthree\n");
    expect(diff.hunks[0]?.lines).toEqual([" one", " two", "+three"]);
    expect(diff).toMatchObject({ added: 1, removed: 0 });
  });

  it("leaves out the missing final newline marker", () => {
    const diff = fileDiff("a.txt", "a\nb", "a\nc");
    expect(diff.hunks[0]?.lines).toEqual([" a", "-b", "+c"]);
  });

  it("cuts a huge diff at MAX_DIFF_LINES lines, counting every changed line, and says so", () => {
    const diff = fileDiff("big.txt", undefined, lines(MAX_DIFF_LINES + 500));
    expect(diff.added).toBe(MAX_DIFF_LINES + 500);
    expect(diff.truncated).toBe(true);
    expect(diff.hunks[0]?.lines).toHaveLength(MAX_DIFF_LINES);
    expect(diff.hunks[0]?.new_lines).toBe(MAX_DIFF_LINES);
  });

  it("falls back to whole-file replacement when the comparison would take too long", () => {
    const before = lines(25_000, "old");
    const after = lines(25_000, "new");
    const started = performance.now();
    const diff = fileDiff("swap.txt", before, after);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(diff).toMatchObject({ added: 25_000, removed: 25_000, truncated: true });
    expect(diff.hunks[0]?.lines[0]).toBe("-old 1");
  });
});
