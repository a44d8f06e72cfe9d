import { closeSync, existsSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { ContextMessage } from "../model/message-types.js";
import type { WorkspaceInstructionsResponse } from "../protocol/http-responses.js";
import { isInside } from "../tools/workspace.js";

// Workspace instructions (context-manager "Workspace context injection"): the files users already
// write for coding agents, read from the workspace and put into the system prompt's Workspace
// section. Which files, in this order (the most specific first):
//   1. AGENTS.md in the directory of each file being worked on and its parents below the root,
//      nearest first, for the files of the conversation (newest first);
//   2. at the root: AGENTS.md, CLAUDE.md, .arbor/instructions.md.
// The whole text is capped at MAX_INSTRUCTION_CHARS; what does not fit is cut, and the file says
// so (`truncated`). Freshness: every call stats the candidate files and re-reads only those whose
// mtime or size changed (InstructionFileCache), so an edit is picked up by the next request
// without a watcher. Files are read only inside the workspace: a symlink that leads out is skipped.

export const ROOT_INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", ".arbor/instructions.md"] as const;
export const NESTED_INSTRUCTION_FILE = "AGENTS.md";
/** the cap on the instructions put into one system prompt, in characters */
export const MAX_INSTRUCTION_CHARS = 16_000;
/** at most this many files of the conversation add their directories' AGENTS.md */
const MAX_NEAR_FILES = 8;

/** the files in use and the text they give, as GET /api/sessions/{id}/instructions answers */
export type WorkspaceInstructions = WorkspaceInstructionsResponse;
export type InstructionFile = WorkspaceInstructions["files"][number];

/**
 * The candidate files, workspace-relative, nearest first and without repeats. `nearFiles` are
 * workspace-relative paths of files being worked on; paths that leave the root are ignored.
 */
export function instructionCandidates(nearFiles: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of nearFiles.slice(0, MAX_NEAR_FILES)) {
    let dir = path.posix.dirname(path.posix.normalize(file.replaceAll("\\", "/")));
    while (dir !== "." && dir !== "/" && !dir.startsWith("..") && !path.posix.isAbsolute(dir)) {
      out.push(`${dir}/${NESTED_INSTRUCTION_FILE}`);
      dir = path.posix.dirname(dir);
    }
  }
  out.push(...ROOT_INSTRUCTION_FILES);
  return [...new Set(out)];
}

/**
 * The workspace-relative files the conversation worked on, newest first: file references and
 * the `path` argument of tool calls (read_file, write_file, edit_file, …).
 */
export function filesWorkedOn(messages: readonly ContextMessage[]): string[] {
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && out.length < MAX_NEAR_FILES; i--) {
    const body = messages[i]?.body;
    if (body?.message_type === "file_reference") out.push(body.path);
    if (body?.message_type === "tool_request") {
      for (const call of body.calls) {
        if (typeof call.arguments.path === "string") out.push(call.arguments.path);
      }
    }
  }
  return [...new Set(out)];
}

interface CachedFile {
  mtimeMs: number;
  size: number;
  text: string;
}

/** Texts of instruction files by real path, re-read when the mtime or size changes. */
export class InstructionFileCache {
  readonly #files = new Map<string, CachedFile>();
  readonly #limit: number;

  constructor(limit = 256) {
    this.#limit = limit;
  }

  /** The file's text (at most `maxChars`·4 bytes read); undefined when it is not a regular file. */
  read(realPath: string, maxChars: number): string | undefined {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(realPath);
    } catch {
      this.#files.delete(realPath);
      return undefined;
    }
    if (!stat.isFile()) return undefined;
    const cached = this.#files.get(realPath);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.text;
    const text = readPrefix(realPath, Math.min(stat.size, maxChars * 4));
    if (text === undefined) return undefined;
    if (this.#files.size >= this.#limit) this.#files.clear();
    this.#files.set(realPath, { mtimeMs: stat.mtimeMs, size: stat.size, text });
    return text;
  }
}

function readPrefix(file: string, bytes: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const sharedCache = new InstructionFileCache();

/**
 * The real path of `file` (symlinks resolved), undefined when it does not exist. This runs for
 * every candidate on every model request, most of them missing: the existence check spares the
 * error a failed realpath throws (its stack trace), and the native realpath is one system call
 * where fs.realpathSync walks the path with an lstat per component (issue #30's profile).
 */
function realPathOf(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return realpathSync.native(file);
  } catch {
    return undefined;
  }
}

/**
 * Reads the instructions for a workspace. Never throws: a missing root, an unreadable file or a
 * file outside the workspace simply contributes nothing.
 */
export function readWorkspaceInstructions(
  root: string,
  options: { nearFiles?: readonly string[]; maxChars?: number; cache?: InstructionFileCache } = {},
): WorkspaceInstructions {
  const maxChars = options.maxChars ?? MAX_INSTRUCTION_CHARS;
  const cache = options.cache ?? sharedCache;
  const result: WorkspaceInstructions = { text: "", files: [], max_chars: maxChars };
  const realRoot = realPathOf(root);
  if (realRoot === undefined) return result;
  const blocks: string[] = [];
  let used = 0;
  for (const relative of instructionCandidates(options.nearFiles ?? [])) {
    const real = realPathOf(path.join(realRoot, relative));
    if (real === undefined || !isInside(realRoot, real)) continue;
    const text = cache.read(real, maxChars)?.trim();
    if (!text) continue;
    const room = Math.max(0, maxChars - used);
    const kept = text.slice(0, room);
    const truncated = kept.length < text.length;
    result.files.push({ path: relative, chars: kept.length, truncated });
    if (kept.length === 0) continue;
    used += kept.length;
    blocks.push(
      `From ${relative}:\n${kept}${truncated ? "\n[… cut: the instructions are capped]" : ""}`,
    );
  }
  result.text = blocks.join("\n\n");
  return result;
}
