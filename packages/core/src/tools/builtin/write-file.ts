import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { FileChangePreview, FileDiff } from "../../model/message-types.js";
import {
  type AgentTool,
  defineTool,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "../tool.js";
import {
  errorCode,
  fsError,
  refuseHardLinks,
  throwIfCancelled,
  Workspace,
  type WorkspacePath,
} from "../workspace.js";
import { fileDiff } from "./file-diff.js";

// REQ-049, 104, 137: the write_file tool.

export interface WriteFileToolOptions {
  workspaceRoot: string;
  /** an existing file above this size is not compared for the diff (10 MiB); it is still written */
  maxDiffBytes?: number;
}

export interface WriteFileDetails {
  /** path relative to the workspace root */
  path: string;
  /** bytes written (UTF-8) */
  bytes: number;
  /**
   * what changed, as a bounded unified diff (a new file: its lines as added); absent when the
   * file it replaced could not be compared (binary, larger than maxDiffBytes)
   */
  diff?: FileDiff;
}

const writeFileParameters = z.object({
  path: z
    .string()
    .min(1)
    .describe("Path of the file, relative to the workspace root (or absolute inside it)."),
  content: z.string().describe("The complete new content of the file."),
});

type WriteFileParams = z.output<typeof writeFileParameters>;

export function createWriteFileTool(
  options: WriteFileToolOptions,
): AgentTool<typeof writeFileParameters, WriteFileDetails> {
  const workspace = new Workspace(options.workspaceRoot);
  const maxDiffBytes = options.maxDiffBytes ?? 10 * 1024 * 1024;
  return defineTool({
    name: "write_file",
    label: "Write file",
    category: "write",
    description:
      "Create or overwrite a file in the workspace with the given content (UTF-8). Missing parent directories are created. " +
      "Overwriting replaces the whole file: to change part of an existing file use edit_file.",
    parameters: writeFileParameters,
    // issue #27: the approval card shows the new file, or the change to the one on disk
    describeCall: (params) => previewWrite(workspace, params, maxDiffBytes),
    async execute(
      params: WriteFileParams,
      ctx: ToolContext,
    ): Promise<ToolResult<WriteFileDetails>> {
      try {
        throwIfCancelled(ctx.signal, "write_file");
        const target = await workspace.resolve(params.path);
        const existed = await fileExists(target.absolute, target.relative);
        const before = existed ? await comparableText(target, maxDiffBytes) : undefined;
        throwIfCancelled(ctx.signal, "write_file");
        await mkdir(path.dirname(target.absolute), { recursive: true }).catch((err: unknown) => {
          throw fsError(err, path.posix.dirname(target.relative));
        });
        // REQ-104: the last check before the file changes
        throwIfCancelled(ctx.signal, "write_file");
        const bytes = Buffer.from(params.content, "utf8");
        await writeFile(target.absolute, bytes).catch((err: unknown) => {
          throw fsError(err, target.relative);
        });
        const verb = existed ? "Overwrote" : "Created";
        return {
          content: [{ type: "text", text: `${verb} ${target.relative} (${bytes.length} bytes)` }],
          details: {
            path: target.relative,
            bytes: bytes.length,
            ...(before !== null ? { diff: fileDiff(target.relative, before, params.content) } : {}),
          },
        };
      } catch (err) {
        throw fsError(err, params.path);
      }
    },
  });
}

/**
 * The text of an existing file to compare a write with; null when it cannot be shown as text
 * (binary, or larger than maxBytes).
 */
async function comparableText(target: WorkspacePath, maxBytes: number): Promise<string | null> {
  const stats = await stat(target.absolute);
  if (stats.size > maxBytes) return null;
  const bytes = await readFile(target.absolute);
  if (bytes.subarray(0, 8000).includes(0)) return null;
  return bytes.toString("utf8");
}

/**
 * What the call would write, read against the disk now: a new file as its content, an existing
 * one as the diff from what is there. Reads only through Workspace.resolve (never outside the
 * workspace, never Arbor's data directory); why it would fail otherwise, in the tool's words.
 */
async function previewWrite(
  workspace: Workspace,
  raw: Record<string, unknown>,
  maxBytes: number,
): Promise<FileChangePreview | undefined> {
  const parsed = writeFileParameters.safeParse(raw);
  if (!parsed.success) return undefined;
  const params = parsed.data;
  try {
    const target = await workspace.resolve(params.path);
    const existed = await fileExists(target.absolute, target.relative);
    if (!existed) {
      return {
        kind: "file_change",
        path: target.relative,
        diff: fileDiff(target.relative, undefined, params.content),
      };
    }
    const before = await comparableText(target, maxBytes);
    if (before === null) {
      return {
        kind: "file_change",
        path: target.relative,
        problem: `${target.relative} is binary or larger than ${maxBytes} bytes: the change cannot be shown as a diff.`,
      };
    }
    return {
      kind: "file_change",
      path: target.relative,
      diff: fileDiff(target.relative, before, params.content),
    };
  } catch (err) {
    return { kind: "file_change", path: params.path, problem: fsError(err, params.path).message };
  }
}

/** Whether a regular file is there already; a directory at the path is an error. */
async function fileExists(absolute: string, relative: string): Promise<boolean> {
  try {
    const stats = await stat(absolute);
    if (stats.isDirectory()) throw ToolError.failed(`Is a directory, not a file: ${relative}`);
    refuseHardLinks(stats, relative);
    return true;
  } catch (err) {
    if (errorCode(err) === "ENOENT") return false;
    throw fsError(err, relative);
  }
}
