import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import {
  type AgentTool,
  defineTool,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "../tool.js";
import { errorCode, fsError, refuseHardLinks, throwIfCancelled, Workspace } from "../workspace.js";

// REQ-049, 104, 137: the write_file tool.

export interface WriteFileToolOptions {
  workspaceRoot: string;
}

export interface WriteFileDetails {
  /** path relative to the workspace root */
  path: string;
  /** bytes written (UTF-8) */
  bytes: number;
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
  return defineTool({
    name: "write_file",
    label: "Write file",
    category: "write",
    description:
      "Create or overwrite a file in the workspace with the given content (UTF-8). Missing parent directories are created. " +
      "Overwriting replaces the whole file: to change part of an existing file use edit_file.",
    parameters: writeFileParameters,
    async execute(
      params: WriteFileParams,
      ctx: ToolContext,
    ): Promise<ToolResult<WriteFileDetails>> {
      try {
        throwIfCancelled(ctx.signal, "write_file");
        const target = await workspace.resolve(params.path);
        const existed = await fileExists(target.absolute, target.relative);
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
          details: { path: target.relative, bytes: bytes.length },
        };
      } catch (err) {
        throw fsError(err, params.path);
      }
    },
  });
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
