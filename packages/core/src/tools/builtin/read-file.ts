import { open, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import type { ImageContent, TextContent } from "../../model/llm-messages.js";
import {
  type AgentTool,
  defineTool,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "../tool.js";
import {
  fsError,
  refuseHardLinks,
  throwIfCancelled,
  Workspace,
  type WorkspacePath,
} from "../workspace.js";

// REQ-048, 098–100, 137: the read_file tool.
//
// Decision on large files: a text file over `maxTextBytes` is refused when read whole (REQ-098),
// but with `offset`/`limit` it is streamed line by line and only the requested range is kept, so
// the model can page through a big log. The text returned by one call is still capped at
// `maxTextBytes`. Small files are read in one go, which also gives the total line count.

export interface ReadFileToolOptions {
  workspaceRoot: string;
  /** text files above this size must be read with offset/limit; also caps one call's output (1 MiB) */
  maxTextBytes?: number;
  /** images above this size are refused (20 MiB) */
  maxImageBytes?: number;
  /** longer lines are cut, so one minified line cannot flood the context (2000) */
  maxLineChars?: number;
}

export interface ReadFileDetails {
  /** path relative to the workspace root */
  path: string;
}

export const DEFAULT_MAX_TEXT_BYTES = 1024 * 1024;
export const DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** REQ-099: image types returned as ImageContent, by extension. */
export const IMAGE_MIME_TYPES: Readonly<Record<string, string>> = Object.freeze({
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
});

/** bytes inspected for NUL when deciding whether a file is binary (git uses the same heuristic) */
const BINARY_SNIFF_BYTES = 8000;

const readFileParameters = z.object({
  path: z
    .string()
    .min(1)
    .describe("Path of the file, relative to the workspace root (or absolute inside it)."),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("1-based line number to start reading from. Defaults to 1."),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Maximum number of lines to return. Defaults to the rest of the file."),
});

type ReadFileParams = z.output<typeof readFileParameters>;

interface Limits {
  maxTextBytes: number;
  maxImageBytes: number;
  maxLineChars: number;
}

export function createReadFileTool(
  options: ReadFileToolOptions,
): AgentTool<typeof readFileParameters, ReadFileDetails> {
  const workspace = new Workspace(options.workspaceRoot);
  const limits: Limits = {
    maxTextBytes: options.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES,
    maxImageBytes: options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES,
    maxLineChars: options.maxLineChars ?? 2000,
  };
  return defineTool({
    name: "read_file",
    label: "Read file",
    category: "read",
    description:
      "Read a file in the workspace. Text is returned with 1-based line numbers (`N<TAB>line`) under a header; " +
      "use `offset` and `limit` to read part of a file. " +
      `Text files over ${limits.maxTextBytes} bytes must be read in parts with offset/limit; lines over ${limits.maxLineChars} characters are cut. ` +
      `Images (png, jpg, jpeg, gif, webp, bmp; up to ${limits.maxImageBytes} bytes) are returned as images. Binary files are refused.`,
    parameters: readFileParameters,
    async execute(params: ReadFileParams, ctx: ToolContext): Promise<ToolResult<ReadFileDetails>> {
      try {
        return await readTarget(workspace, params, limits, ctx.signal);
      } catch (err) {
        // last line of defence: no raw error (with its stack) reaches the model
        throw fsError(err, params.path);
      }
    },
  });
}

async function readTarget(
  workspace: Workspace,
  params: ReadFileParams,
  limits: Limits,
  signal: AbortSignal,
): Promise<ToolResult<ReadFileDetails>> {
  throwIfCancelled(signal, "read_file");
  const target = await workspace.resolve(params.path);
  throwIfCancelled(signal, "read_file");
  const stats = await stat(target.absolute).catch((err: unknown) => {
    throw fsError(err, target.relative);
  });
  if (stats.isDirectory()) {
    throw ToolError.failed(
      `Is a directory, not a file: ${target.relative}. Use list_files to see its contents.`,
    );
  }
  if (!stats.isFile()) {
    // a FIFO or device would block or never end
    throw ToolError.failed(`Not a regular file: ${target.relative}`);
  }
  refuseHardLinks(stats, target.relative);
  const mimeType = IMAGE_MIME_TYPES[path.extname(target.absolute).toLowerCase()];
  const content =
    mimeType !== undefined
      ? await readImage(target, stats.size, mimeType, limits, signal)
      : await readText(target, stats.size, params, limits, signal);
  return { content, details: { path: target.relative } };
}

async function readImage(
  target: WorkspacePath,
  size: number,
  mimeType: string,
  limits: Limits,
  signal: AbortSignal,
): Promise<Array<TextContent | ImageContent>> {
  if (size > limits.maxImageBytes) {
    throw ToolError.failed(
      `Image too large (${size} bytes, limit ${limits.maxImageBytes} bytes): ${target.relative}`,
    );
  }
  throwIfCancelled(signal, "read_file");
  const bytes = await readFile(target.absolute).catch((err: unknown) => {
    throw fsError(err, target.relative);
  });
  return [
    { type: "text", text: `Image: ${target.relative} (${mimeType}, ${bytes.length} bytes)` },
    { type: "image", data: bytes.toString("base64"), mimeType },
  ];
}

async function readText(
  target: WorkspacePath,
  size: number,
  params: ReadFileParams,
  limits: Limits,
  signal: AbortSignal,
): Promise<TextContent[]> {
  const partial = params.offset !== undefined || params.limit !== undefined;
  if (size > limits.maxTextBytes && !partial) {
    throw ToolError.failed(
      `File too large (${size} bytes). Use offset/limit to read it in parts (at most ${limits.maxTextBytes} bytes per call): ${target.relative}`,
    );
  }
  throwIfCancelled(signal, "read_file");
  const text =
    size > limits.maxTextBytes
      ? await streamRange(target, size, params, limits, signal)
      : await readWhole(target, params, limits);
  return [{ type: "text", text }];
}

async function readWhole(
  target: WorkspacePath,
  params: ReadFileParams,
  limits: Limits,
): Promise<string> {
  const bytes = await readFile(target.absolute).catch((err: unknown) => {
    throw fsError(err, target.relative);
  });
  refuseBinary(bytes.subarray(0, BINARY_SNIFF_BYTES), bytes.length, target);
  const lines = splitLines(bytes.toString("utf8"));
  if (lines.length === 0) return `File: ${target.relative} (empty)`;
  const first = params.offset ?? 1;
  if (first > lines.length) {
    throw ToolError.failed(
      `offset ${first} is past the end of ${target.relative} (${lines.length} lines).`,
    );
  }
  const end = Math.min(
    lines.length,
    params.limit === undefined ? lines.length : first - 1 + params.limit,
  );
  const body = numberLines(lines.slice(first - 1, end), first, limits);
  const whole = first === 1 && end === lines.length;
  const header = whole
    ? `File: ${target.relative} (${lines.length} ${lines.length === 1 ? "line" : "lines"})`
    : `File: ${target.relative} (lines ${first}-${end} of ${lines.length})`;
  const more = lines.length - end;
  const footer = more > 0 ? `\n... (${more} more lines; continue with offset=${end + 1})` : "";
  return `${header}\n${body.text}${body.footer}${footer}`;
}

/** Reads only the requested lines of a file too large to load whole. */
async function streamRange(
  target: WorkspacePath,
  size: number,
  params: ReadFileParams,
  limits: Limits,
  signal: AbortSignal,
): Promise<string> {
  const handle = await open(target.absolute, "r").catch((err: unknown) => {
    throw fsError(err, target.relative);
  });
  try {
    const sniff = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await handle.read(sniff, 0, BINARY_SNIFF_BYTES, 0);
    refuseBinary(sniff.subarray(0, bytesRead), size, target);
    const first = params.offset ?? 1;
    const last = params.limit === undefined ? Number.POSITIVE_INFINITY : first - 1 + params.limit;
    const selected: string[] = [];
    let lineNo = 0;
    let outputBytes = 0;
    let cappedAt: number | undefined;
    let reachedEnd = true;
    const input = handle.createReadStream({ start: 0, autoClose: false });
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    try {
      for await (const line of lines) {
        lineNo++;
        throwIfCancelled(signal, "read_file");
        if (lineNo < first) continue;
        if (lineNo > last) {
          reachedEnd = false;
          break;
        }
        outputBytes += Buffer.byteLength(line) + 1;
        if (outputBytes > limits.maxTextBytes) {
          cappedAt = lineNo;
          reachedEnd = false;
          break;
        }
        selected.push(line);
      }
    } finally {
      lines.close();
      input.destroy();
    }
    if (selected.length === 0) {
      throw ToolError.failed(
        `offset ${first} is past the end of ${target.relative} (${lineNo} lines).`,
      );
    }
    const end = first + selected.length - 1;
    const body = numberLines(selected, first, limits);
    const header = `File: ${target.relative} (lines ${first}-${end}${reachedEnd ? ` of ${end}` : ""}; file is ${size} bytes)`;
    const footer =
      cappedAt !== undefined
        ? `\n... (output capped at ${limits.maxTextBytes} bytes; continue with offset=${cappedAt})`
        : reachedEnd
          ? ""
          : `\n... (more lines follow; continue with offset=${end + 1})`;
    return `${header}\n${body.text}${body.footer}${footer}`;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function refuseBinary(sample: Buffer, size: number, target: WorkspacePath): void {
  if (sample.includes(0)) {
    throw ToolError.failed(
      `Binary file not shown: ${target.relative} (${size} bytes). read_file shows text files and images (${Object.keys(IMAGE_MIME_TYPES).join(", ")}).`,
    );
  }
}

/** Lines without terminators; a final newline does not start an extra empty line. */
export function splitLines(text: string): string[] {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body === "") return [];
  const lines = body.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function numberLines(
  lines: readonly string[],
  firstLineNo: number,
  limits: Limits,
): { text: string; footer: string } {
  const width = String(firstLineNo + lines.length - 1).length;
  let cut = 0;
  const out = lines.map((line, i) => {
    let shown = line;
    if (shown.length > limits.maxLineChars) {
      cut++;
      shown = `${shown.slice(0, limits.maxLineChars)}… (line truncated, ${line.length} chars)`;
    }
    return `${String(firstLineNo + i).padStart(width)}\t${shown}`;
  });
  return {
    text: out.join("\n"),
    footer:
      cut > 0
        ? `\n(${cut} long line${cut === 1 ? "" : "s"} cut at ${limits.maxLineChars} characters)`
        : "",
  };
}
