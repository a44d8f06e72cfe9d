import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ContextMessage,
  ContextMessageSchema,
  type LineRange,
} from "../model/message-types.js";
import { Workspace } from "../tools/workspace.js";
import { createFileReferenceProcessor } from "./file-reference-processor.js";
import { type PipelineContext, ProcessorError } from "./pipeline.js";

let base: string;
let root: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-fileref-")));
  root = path.join(base, "ws");
  await mkdir(path.join(root, "src"), { recursive: true });
  await writeFile(path.join(root, "src", "a.ts"), "one\ntwo\nthree\nfour\nfive\n");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function ctx(withWorkspace = true): PipelineContext {
  return {
    mode: "act",
    role: "actor",
    tools: [],
    workspace: withWorkspace ? new Workspace(root) : undefined,
  };
}

function fileRef(filePath: string, range?: LineRange): ContextMessage {
  return ContextMessageSchema.parse({
    id: "m1",
    session_id: "s1",
    role: "user",
    body: { message_type: "file_reference", path: filePath, range },
    status: "pending",
    created_at: "2025-01-01T00:00:00.000Z",
  });
}

async function resolve(message: ContextMessage, options = {}, context = ctx()) {
  const result = await createFileReferenceProcessor(options).process(message, context);
  expect(result.kind).toBe("continue");
  const body = result.message.body;
  if (body.message_type !== "file_reference") throw new Error("body type changed");
  return { message: result.message, resolved: body.resolved };
}

async function failure(message: ContextMessage, options = {}, context = ctx()) {
  const error = await createFileReferenceProcessor(options)
    .process(message, context)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProcessorError);
  return error as ProcessorError;
}

describe("Processing a file reference message", () => {
  it("embeds the whole file without a range and leaves the input message unchanged", async () => {
    const input = fileRef("src/a.ts");
    const { message, resolved } = await resolve(input);
    expect(resolved).toEqual({
      content: "one\ntwo\nthree\nfour\nfive",
      start_line: 1,
      end_line: 5,
      total_lines: 5,
      truncated: false,
    });
    expect(message.id).toBe("m1");
    expect(input.body).not.toHaveProperty("resolved");
  });

  it("extracts only the range's lines (1-based, inclusive)", async () => {
    const { resolved } = await resolve(fileRef("src/a.ts", { start_line: 2, end_line: 4 }));
    expect(resolved).toMatchObject({ content: "two\nthree\nfour", start_line: 2, end_line: 4 });
    const single = await resolve(fileRef("src/a.ts", { start_line: 5, end_line: 5 }));
    expect(single.resolved?.content).toBe("five");
  });

  it("a range past the end names the file's line count", async () => {
    const error = await failure(fileRef("src/a.ts", { start_line: 4, end_line: 9 }));
    expect(error.message).toBe("Line range 4-9 is past the end of src/a.ts, which has 5 lines.");
    expect(error.processor).toBe("file_reference");
  });

  it("refuses a path that escapes the workspace, lexically or through a symlink", async () => {
    await writeFile(path.join(base, "secret.txt"), "secret");
    const lexical = await failure(fileRef("../secret.txt"));
    expect(lexical.message).toMatch(/outside the workspace root/);
    expect(lexical.recoverable).toBe(false);
    await symlink(path.join(base, "secret.txt"), path.join(root, "link.txt"));
    const viaLink = await failure(fileRef("link.txt"));
    expect(viaLink.message).toMatch(/outside the workspace root/);
  });

  it("refuses a file with more than one hard link, for good", async () => {
    await writeFile(path.join(base, "secret.txt"), "secret");
    await link(path.join(base, "secret.txt"), path.join(root, "hard.txt"));
    const error = await failure(fileRef("hard.txt"));
    expect(error.message).toBe(
      "refused: hard.txt has 2 hard links; another name may lie outside the workspace",
    );
    expect(error.recoverable).toBe(false);
  });

  it("a path over 4096 characters is refused at once", async () => {
    const started = performance.now();
    const error = await failure(fileRef("a/".repeat(50_000)));
    expect(performance.now() - started).toBeLessThan(100);
    expect(error.message).toMatch(/^Path is too long \(100000 characters/);
  });

  it("a missing file is a clear, recoverable error", async () => {
    const error = await failure(fileRef("src/missing.ts"));
    expect(error.message).toBe("File not found: src/missing.ts");
    expect(error.recoverable).toBe(true);
  });

  it("refuses directories, binary files, files over the size limit, and no workspace", async () => {
    expect((await failure(fileRef("src"))).message).toMatch(/is a directory/);
    await writeFile(path.join(root, "bin.dat"), Buffer.from([0x41, 0x00, 0x42]));
    expect((await failure(fileRef("bin.dat"))).message).toMatch(/binary file/);
    expect((await failure(fileRef("src/a.ts"), { maxFileBytes: 10 })).message).toMatch(
      /limited to 10 bytes/,
    );
    expect((await failure(fileRef("src/a.ts"), {}, ctx(false))).message).toMatch(/no workspace/);
  });

  it("caps the embedded text at a line boundary and marks it truncated", async () => {
    const { resolved } = await resolve(fileRef("src/a.ts"), { maxContentBytes: 9 });
    expect(resolved).toEqual({
      content: "one\ntwo",
      start_line: 1,
      end_line: 2,
      total_lines: 5,
      truncated: true,
    });
    const cut = await resolve(fileRef("src/a.ts", { start_line: 3, end_line: 4 }), {
      maxContentBytes: 2,
    });
    expect(cut.resolved).toMatchObject({
      content: "th",
      start_line: 3,
      end_line: 3,
      truncated: true,
    });
  });

  it("handles CRLF, a missing final newline and empty files", async () => {
    await writeFile(path.join(root, "crlf.txt"), "a\r\nb\r\nc");
    const crlf = await resolve(fileRef("crlf.txt", { start_line: 2, end_line: 3 }));
    expect(crlf.resolved).toMatchObject({ content: "b\nc", total_lines: 3 });
    await writeFile(path.join(root, "empty.txt"), "");
    const empty = await resolve(fileRef("empty.txt"));
    expect(empty.resolved).toEqual({
      content: "",
      start_line: 0,
      end_line: 0,
      total_lines: 0,
      truncated: false,
    });
    expect((await failure(fileRef("empty.txt", { start_line: 1, end_line: 1 }))).message).toMatch(
      /which has 0 lines/,
    );
  });

  it("passes other messages and already resolved references through unchanged", async () => {
    const processor = createFileReferenceProcessor();
    const text = ContextMessageSchema.parse({
      ...fileRef("x"),
      body: { message_type: "text", text: "hi" },
    });
    expect(await processor.process(text, ctx(false))).toEqual({ kind: "continue", message: text });
    const { message } = await resolve(fileRef("src/a.ts"));
    const again = await processor.process(message, ctx(false));
    expect(again.message).toBe(message);
  });
});
