import { open, stat } from "node:fs/promises";
import { Workspace } from "../tools/workspace.js";

// What the chat's file view shows when a codebase result's `file:line` is clicked: a workspace
// file's text, confined to the workspace like the file tools (symlinks resolved, nothing outside).

/** The file view reads at most this much of a file (512 KiB). */
export const FILE_VIEW_MAX_BYTES = 512 * 1024;

export type FileViewResult =
  | { ok: true; path: string; content: string; total_lines: number; truncated: boolean }
  | { ok: false; reason: "outside" | "not_found" | "not_a_file" | "binary"; message: string };

export async function readWorkspaceFile(root: string, input: string): Promise<FileViewResult> {
  let target: { absolute: string; relative: string };
  try {
    target = await new Workspace(root).resolve(input);
  } catch (err) {
    return {
      ok: false,
      reason: "outside",
      message: err instanceof Error ? err.message : String(err),
    };
  }
  let size: number;
  try {
    const info = await stat(target.absolute);
    if (!info.isFile())
      return { ok: false, reason: "not_a_file", message: `${target.relative} is not a file` };
    size = info.size;
  } catch {
    return { ok: false, reason: "not_found", message: `${target.relative} does not exist` };
  }
  const length = Math.min(size, FILE_VIEW_MAX_BYTES);
  const buffer = Buffer.alloc(length);
  const handle = await open(target.absolute, "r");
  try {
    await handle.read(buffer, 0, length, 0);
  } finally {
    await handle.close();
  }
  if (buffer.subarray(0, 8192).includes(0)) {
    return { ok: false, reason: "binary", message: `${target.relative} is a binary file` };
  }
  const content = buffer.toString("utf8");
  const lines = content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
  return { ok: true, path: target.relative, content, total_lines: lines, truncated: size > length };
}
