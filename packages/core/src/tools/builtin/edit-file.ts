import { readFile, stat, writeFile } from "node:fs/promises";
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
  fsError,
  refuseHardLinks,
  throwIfCancelled,
  Workspace,
  type WorkspacePath,
} from "../workspace.js";
import { fileDiff } from "./file-diff.js";
import { findSimilarText } from "./similar-text.js";

// REQ-050, 101–103, 137: the edit_file tool. One exact, unique replacement per call: an
// ambiguous or missing old_text is an error the model can correct, never a silent guess.

export interface EditFileToolOptions {
  workspaceRoot: string;
  /** files above this size are refused (10 MiB) */
  maxBytes?: number;
}

export interface EditFileDetails {
  /** path relative to the workspace root */
  path: string;
  old_lines: number;
  new_lines: number;
  /** what changed in the file, as a bounded unified diff (the approval card's applied diff) */
  diff: FileDiff;
}

const editFileParameters = z.object({
  path: z
    .string()
    .min(1)
    .describe("Path of the file to edit, relative to the workspace root (or absolute inside it)."),
  old_text: z
    .string()
    .min(1)
    .describe(
      "The exact text to replace, including whitespace and indentation. It must occur exactly once in the file; include surrounding lines to make it unique.",
    ),
  new_text: z.string().describe("The replacement text (may be empty to delete old_text)."),
});

type EditFileParams = z.output<typeof editFileParameters>;

export function createEditFileTool(
  options: EditFileToolOptions,
): AgentTool<typeof editFileParameters, EditFileDetails> {
  const workspace = new Workspace(options.workspaceRoot);
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  return defineTool({
    name: "edit_file",
    label: "Edit file",
    category: "write",
    description:
      "Replace exactly one occurrence of `old_text` with `new_text` in a file of the workspace. " +
      "`old_text` must match the file exactly (whitespace included) and be unique; otherwise the edit fails with a hint " +
      "(the most similar text when not found, the number of matches when ambiguous). The file's line endings (LF or CRLF) are kept. " +
      "Read the file first; use write_file to create files.",
    parameters: editFileParameters,
    // issue #27: the approval card shows the change against the file on disk before it runs
    describeCall: (params) => previewEdit(workspace, params, maxBytes),
    async execute(params: EditFileParams, ctx: ToolContext): Promise<ToolResult<EditFileDetails>> {
      try {
        return await editFile(workspace, params, maxBytes, ctx.signal);
      } catch (err) {
        throw fsError(err, params.path);
      }
    },
  });
}

async function editFile(
  workspace: Workspace,
  params: EditFileParams,
  maxBytes: number,
  signal: AbortSignal,
): Promise<ToolResult<EditFileDetails>> {
  throwIfCancelled(signal, "edit_file");
  const target = await workspace.resolve(params.path);
  throwIfCancelled(signal, "edit_file");
  const content = await readEditable(target, maxBytes);
  const { match, updated } = applyEdit(content, params, target.relative);
  // REQ-103: the last check before the file changes
  throwIfCancelled(signal, "edit_file");
  await writeFile(target.absolute, updated, "utf8").catch((err: unknown) => {
    throw fsError(err, target.relative);
  });
  const oldLines = countLines(match.oldText);
  const newLines = countLines(match.newText);
  const atLine = lineOf(content, match.index);
  return {
    content: [
      {
        type: "text",
        text: `Edited ${target.relative}: replaced ${plural(oldLines, "line")} with ${plural(newLines, "line")} at line ${atLine}.`,
      },
    ],
    details: {
      path: target.relative,
      old_lines: oldLines,
      new_lines: newLines,
      diff: fileDiff(target.relative, content, updated),
    },
  };
}

/**
 * The file's text after the edit, with the match it replaced; a ToolError the model can act on
 * when the edit cannot be made (identical texts, old_text missing or ambiguous).
 */
function applyEdit(
  content: string,
  params: EditFileParams,
  relative: string,
): { match: Extract<Match, { type: "one" }>; updated: string } {
  if (params.old_text === params.new_text) {
    throw ToolError.failed("old_text and new_text are identical; nothing to change.");
  }
  const match = locate(content, params.old_text, params.new_text);
  switch (match.type) {
    case "none": {
      const similar = findSimilarText(content, params.old_text);
      const hint = similar
        ? ` Did you mean:\n${similar.text}\n(lines ${similar.startLine}-${similar.endLine} of the file)`
        : " Check whitespace and indentation, or read the file again.";
      throw ToolError.failed(`old_text not found in ${relative}.${hint}`);
    }
    case "many":
      throw ToolError.failed(
        `old_text matches ${match.count} locations in ${relative}. Include more context to make it unique.`,
      );
    case "one":
      break;
    default:
      match satisfies never;
  }
  const updated =
    content.slice(0, match.index) +
    match.newText +
    content.slice(match.index + match.oldText.length);
  return { match, updated };
}

/**
 * What the call would change, read from the file on disk now: the diff, or why the edit would
 * fail as it stands (the same words the model would get). Reads only through Workspace.resolve,
 * so a path outside the workspace (or through a symlink out of it, or into Arbor's data
 * directory) is a problem, never read. Undefined for arguments the tool would refuse anyway.
 */
async function previewEdit(
  workspace: Workspace,
  raw: Record<string, unknown>,
  maxBytes: number,
): Promise<FileChangePreview | undefined> {
  const parsed = editFileParameters.safeParse(raw);
  if (!parsed.success) return undefined;
  const params = parsed.data;
  try {
    const target = await workspace.resolve(params.path);
    const content = await readEditable(target, maxBytes);
    const { updated } = applyEdit(content, params, target.relative);
    return {
      kind: "file_change",
      path: target.relative,
      diff: fileDiff(target.relative, content, updated),
    };
  } catch (err) {
    return { kind: "file_change", path: params.path, problem: fsError(err, params.path).message };
  }
}

async function readEditable(target: WorkspacePath, maxBytes: number): Promise<string> {
  const stats = await stat(target.absolute).catch((err: unknown) => {
    throw fsError(err, target.relative);
  });
  if (stats.isDirectory()) throw ToolError.failed(`Is a directory, not a file: ${target.relative}`);
  if (!stats.isFile()) throw ToolError.failed(`Not a regular file: ${target.relative}`);
  refuseHardLinks(stats, target.relative);
  if (stats.size > maxBytes) {
    throw ToolError.failed(
      `File too large to edit (${stats.size} bytes, limit ${maxBytes}): ${target.relative}. Use bash for bulk changes.`,
    );
  }
  const bytes = await readFile(target.absolute).catch((err: unknown) => {
    throw fsError(err, target.relative);
  });
  if (bytes.subarray(0, 8000).includes(0)) {
    throw ToolError.failed(`Binary file, cannot edit: ${target.relative}`);
  }
  return bytes.toString("utf8");
}

type Match =
  | { type: "one"; index: number; oldText: string; newText: string }
  | { type: "many"; count: number }
  | { type: "none" };

/**
 * Finds old_text, first as given, then with its line endings switched to the other convention
 * (the model usually writes LF even when the file is CRLF). new_text gets the same line endings
 * as the variant that matched, so the file's own convention is preserved.
 */
export function locate(content: string, oldText: string, newText: string): Match {
  const toLf = (s: string) => s.replace(/\r\n/g, "\n");
  const toCrlf = (s: string) => toLf(s).replace(/\n/g, "\r\n");
  const variants: Array<[string, string]> = [[oldText, newText]];
  if (content.includes("\r\n")) variants.push([toCrlf(oldText), toCrlf(newText)]);
  if (oldText.includes("\r\n")) variants.push([toLf(oldText), toLf(newText)]);
  for (const [old, replacement] of variants) {
    const count = countOccurrences(content, old);
    if (count === 1)
      return { type: "one", index: content.indexOf(old), oldText: old, newText: replacement };
    if (count > 1) return { type: "many", count };
  }
  return { type: "none" };
}

/** Occurrences, overlapping ones included: "aa" is ambiguous in "aaa". */
function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) count++;
  return count;
}

/** Lines of a text; a trailing line break does not add a line, "" has none. */
export function countLines(text: string): number {
  if (text === "") return 0;
  const breaks = text.match(/\r?\n/g)?.length ?? 0;
  return /\r?\n$/.test(text) ? breaks : breaks + 1;
}

function lineOf(content: string, index: number): number {
  let line = 1;
  for (let i = content.indexOf("\n"); i !== -1 && i < index; i = content.indexOf("\n", i + 1))
    line++;
  return line;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
