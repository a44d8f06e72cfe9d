import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../../test/support/tool-test-context.js";
import { ToolError } from "../tool.js";
import { createReadFileTool, type ReadFileToolOptions } from "./read-file.js";

let base: string;
let root: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-read-")));
  root = path.join(base, "ws");
  await mkdir(root);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function read(options: Omit<ReadFileToolOptions, "workspaceRoot"> = {}) {
  return createReadFileTool({ workspaceRoot: root, ...options });
}

function text(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content[0]?.text ?? "";
}

async function failure(run: Promise<unknown>): Promise<ToolError> {
  const error = await run.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

// 1x1 transparent PNG
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

describe("read_file", () => {
  it("REQ-048 returns line-numbered text with a header and details.path", async () => {
    await writeFile(path.join(root, "a.txt"), "alpha\nbeta\r\ngamma\n");
    const result = await read().execute({ path: "a.txt" }, createRecordingContext());
    expect(text(result)).toBe("File: a.txt (3 lines)\n1\talpha\n2\tbeta\n3\tgamma");
    expect(result.details).toEqual({ path: "a.txt" });
  });

  it("REQ-048 applies a 1-based offset and a limit with a range header and a continuation hint", async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n");
    await writeFile(path.join(root, "b.txt"), lines);
    const result = await read().execute(
      { path: "b.txt", offset: 9, limit: 2 },
      createRecordingContext(),
    );
    expect(text(result)).toBe(
      "File: b.txt (lines 9-10 of 12)\n 9\tline 9\n10\tline 10\n... (2 more lines; continue with offset=11)",
    );
    await expect(
      read().execute({ path: "b.txt", offset: 13 }, createRecordingContext()),
    ).rejects.toThrow("offset 13 is past the end of b.txt (12 lines).");
  });

  it("reports an empty file and cuts very long lines", async () => {
    await writeFile(path.join(root, "empty.txt"), "");
    expect(text(await read().execute({ path: "empty.txt" }, createRecordingContext()))).toBe(
      "File: empty.txt (empty)",
    );
    await writeFile(path.join(root, "long.txt"), "x".repeat(50));
    const result = await read({ maxLineChars: 10 }).execute(
      { path: "long.txt" },
      createRecordingContext(),
    );
    expect(text(result)).toBe(
      `File: long.txt (1 line)\n1\t${"x".repeat(10)}… (line truncated, 50 chars)\n(1 long line cut at 10 characters)`,
    );
  });

  it("REQ-098 refuses a text file over the limit when read whole, naming its size", async () => {
    await writeFile(path.join(root, "big.log"), "0123456789\n".repeat(200));
    const error = await failure(
      read({ maxTextBytes: 1000 }).execute({ path: "big.log" }, createRecordingContext()),
    );
    expect(error.kind).toBe("failed");
    expect(error.message).toMatch(/^File too large \(2200 bytes\)\. Use offset\/limit/);
  });

  it("REQ-098 streams a range out of a file over the limit when offset/limit are given", async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `row ${i + 1}`).join("\n");
    await writeFile(path.join(root, "big.log"), lines);
    const tool = read({ maxTextBytes: 1000 });
    const middle = await tool.execute(
      { path: "big.log", offset: 4000, limit: 3 },
      createRecordingContext(),
    );
    expect(text(middle)).toMatch(
      /^File: big\.log \(lines 4000-4002; file is \d+ bytes\)\n4000\trow 4000\n4001\trow 4001\n4002\trow 4002\n\.\.\. \(more lines follow; continue with offset=4003\)$/,
    );
    const tail = await tool.execute({ path: "big.log", offset: 4999 }, createRecordingContext());
    expect(text(tail)).toContain("(lines 4999-5000 of 5000;");
    const capped = await tool.execute(
      { path: "big.log", offset: 1, limit: 5000 },
      createRecordingContext(),
    );
    expect(text(capped)).toContain("... (output capped at 1000 bytes; continue with offset=");
  });

  it("REQ-099 returns png as base64 image content with its MIME type", async () => {
    await writeFile(path.join(root, "dot.png"), PNG);
    const result = await read().execute({ path: "dot.png" }, createRecordingContext());
    expect(result.content[1]).toEqual({
      type: "image",
      data: PNG.toString("base64"),
      mimeType: "image/png",
    });
    expect(result.content[0]).toEqual({
      type: "text",
      text: `Image: dot.png (image/png, ${PNG.length} bytes)`,
    });
    await writeFile(path.join(root, "photo.JPG"), PNG);
    const jpg = await read().execute({ path: "photo.JPG" }, createRecordingContext());
    expect(jpg.content[1]).toMatchObject({ type: "image", mimeType: "image/jpeg" });
  });

  it("REQ-098 refuses an image over the image limit", async () => {
    await writeFile(path.join(root, "huge.png"), Buffer.alloc(2048));
    const error = await failure(
      read({ maxImageBytes: 1024 }).execute({ path: "huge.png" }, createRecordingContext()),
    );
    expect(error.message).toMatch(/^Image too large \(2048 bytes/);
  });

  it("refuses binary files", async () => {
    await writeFile(path.join(root, "blob.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
    const error = await failure(read().execute({ path: "blob.bin" }, createRecordingContext()));
    expect(error.message).toMatch(/^Binary file not shown: blob\.bin \(6 bytes\)/);
  });

  it("refuses FIFOs and other special files instead of blocking on them", async () => {
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    const error = await failure(read().execute({ path: "pipe" }, createRecordingContext()));
    expect(error.message).toBe("Not a regular file: pipe");
  });

  it("REQ-100 checks cancellation before I/O", async () => {
    await writeFile(path.join(root, "a.txt"), "a");
    const ctx = createRecordingContext();
    ctx.controller.abort();
    const error = await failure(read().execute({ path: "a.txt" }, ctx));
    expect(error.kind).toBe("cancelled");
  });

  it("fails cleanly on missing files, directories and unreadable files", async () => {
    expect(
      (await failure(read().execute({ path: "nope.txt" }, createRecordingContext()))).message,
    ).toBe("File not found: nope.txt");
    await mkdir(path.join(root, "dir"));
    expect(
      (await failure(read().execute({ path: "dir" }, createRecordingContext()))).message,
    ).toMatch(/^Is a directory, not a file: dir/);
    if (process.getuid?.() !== 0) {
      await writeFile(path.join(root, "locked.txt"), "x");
      await chmod(path.join(root, "locked.txt"), 0o000);
      expect(
        (await failure(read().execute({ path: "locked.txt" }, createRecordingContext()))).message,
      ).toBe("Permission denied: locked.txt");
    }
  });

  it("refuses paths outside the workspace: .., absolute and symlink escapes", async () => {
    await writeFile(path.join(base, "secret.txt"), "secret");
    await symlink(path.join(base, "secret.txt"), path.join(root, "link.txt"));
    for (const p of ["../secret.txt", path.join(base, "secret.txt"), "link.txt"]) {
      const error = await failure(read().execute({ path: p }, createRecordingContext()));
      expect(error.message).toContain("outside the workspace root");
      expect(error.message).toContain(root);
    }
  });
});
