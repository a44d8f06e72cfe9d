import { readFile, stat } from "node:fs/promises";
import type { BodyOf, ContextMessage } from "../model/message-types.js";
import { ToolError } from "../tools/tool.js";
import { fsError, refuseHardLinks } from "../tools/workspace.js";
import { type MessageProcessor, type PipelineContext, ProcessorError } from "./pipeline.js";

// The `file_reference` processor (context-manager "Processing a file reference message"): it
// resolves a file_reference message's path inside the session's workspace, reads the file and
// embeds the requested lines in `body.resolved`. Other messages, and references already resolved,
// pass through untouched.
//
// Limits (documented decisions):
// - A file over `maxFileBytes` (8 MiB) is refused: the whole file is read to count its lines.
// - The embedded text is capped at `maxContentBytes` (256 KiB). Longer selections are cut at a
//   line boundary and marked `truncated: true`, with `end_line` the last line kept; reference a
//   smaller range to see the rest.
// - A file with a NUL byte in its first 8000 bytes is binary and refused (git's heuristic).
// - Lines are 1-based and the range inclusive; a range past the end of the file is an error that
//   names the file's line count. A trailing newline does not start another line. For an empty
//   file without a range, start_line and end_line are 0.

export const FILE_REFERENCE_PROCESSOR = "file_reference";
export const FILE_REFERENCE_MAX_CONTENT_BYTES = 256 * 1024;
export const FILE_REFERENCE_MAX_FILE_BYTES = 8 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8000;

export interface FileReferenceOptions {
  maxContentBytes?: number;
  maxFileBytes?: number;
}

type FileReferenceBody = BodyOf<"file_reference">;
type Resolved = NonNullable<FileReferenceBody["resolved"]>;

export function createFileReferenceProcessor(options: FileReferenceOptions = {}): MessageProcessor {
  const maxContentBytes = options.maxContentBytes ?? FILE_REFERENCE_MAX_CONTENT_BYTES;
  const maxFileBytes = options.maxFileBytes ?? FILE_REFERENCE_MAX_FILE_BYTES;
  return {
    name: FILE_REFERENCE_PROCESSOR,
    async process(message, ctx) {
      const body = message.body;
      if (body.message_type !== "file_reference" || body.resolved) {
        return { kind: "continue", message };
      }
      const resolved = await resolveReference(body, ctx, maxContentBytes, maxFileBytes);
      const next: ContextMessage = { ...message, body: { ...body, resolved } };
      return { kind: "continue", message: next };
    },
  };
}

function fail(message: string, recoverable: boolean, cause?: unknown): ProcessorError {
  return new ProcessorError(FILE_REFERENCE_PROCESSOR, message, { recoverable, cause });
}

async function resolveReference(
  body: FileReferenceBody,
  ctx: PipelineContext,
  maxContentBytes: number,
  maxFileBytes: number,
): Promise<Resolved> {
  if (!ctx.workspace) {
    throw fail(`Cannot resolve ${body.path}: the session has no workspace configured.`, false);
  }
  let absolute: string;
  try {
    absolute = (await ctx.workspace.resolve(body.path)).absolute;
  } catch (err) {
    // escapes (lexical or through a symlink) are refused for good
    throw fail(err instanceof ToolError ? err.message : String(err), false, err);
  }
  const buffer = await readCapped(absolute, body.path, maxFileBytes);
  const sniff = buffer.subarray(0, BINARY_SNIFF_BYTES);
  if (sniff.includes(0)) {
    throw fail(`${body.path} is a binary file; only text files can be referenced.`, true);
  }
  const lines = splitLines(buffer.toString("utf8"));
  const total = lines.length;
  let start = total === 0 ? 0 : 1;
  let end = total;
  if (body.range) {
    ({ start_line: start, end_line: end } = body.range);
    if (start > total || end > total) {
      throw fail(
        `Line range ${start}-${end} is past the end of ${body.path}, which has ${total} line${total === 1 ? "" : "s"}.`,
        true,
      );
    }
  }
  const selected = total === 0 ? [] : lines.slice(start - 1, end);
  const { content, kept, truncated } = capLines(selected, maxContentBytes);
  return {
    content,
    start_line: start,
    end_line: kept === selected.length ? end : start + kept - 1,
    total_lines: total,
    truncated,
  };
}

async function readCapped(absolute: string, displayPath: string, maxFileBytes: number) {
  try {
    const info = await stat(absolute);
    if (info.isDirectory()) throw fail(`${displayPath} is a directory, not a file.`, true);
    if (!info.isFile()) throw fail(`${displayPath} is not a regular file.`, true);
    try {
      refuseHardLinks(info, displayPath);
    } catch (err) {
      // like an escape, refused for good
      throw fail(err instanceof Error ? err.message : String(err), false, err);
    }
    if (info.size > maxFileBytes) {
      throw fail(
        `${displayPath} is ${info.size} bytes; file references are limited to ${maxFileBytes} bytes.`,
        true,
      );
    }
    return await readFile(absolute);
  } catch (err) {
    if (err instanceof ProcessorError) throw err;
    throw fail(fsError(err, displayPath).message, true, err);
  }
}

/** Splits on \n or \r\n; a trailing newline does not start another line. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * Joins whole lines while they fit in `maxBytes` (UTF-8). When not even the first line fits, it is
 * cut at the byte cap (a split character at the end is dropped) and counts as kept.
 */
function capLines(
  lines: readonly string[],
  maxBytes: number,
): { content: string; kept: number; truncated: boolean } {
  let bytes = 0;
  let kept = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line, "utf8") + (kept > 0 ? 1 : 0);
    if (bytes + size > maxBytes) break;
    bytes += size;
    kept++;
  }
  if (kept === 0 && lines.length > 0) {
    const cut = Buffer.from(lines[0]!, "utf8").subarray(0, maxBytes).toString("utf8");
    return { content: cut.replace(/\uFFFD$/, ""), kept: 1, truncated: true };
  }
  return { content: lines.slice(0, kept).join("\n"), kept, truncated: kept < lines.length };
}
