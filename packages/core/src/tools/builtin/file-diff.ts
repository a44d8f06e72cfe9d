import { structuredPatch } from "diff";
import type { DiffHunk, FileDiff } from "../../model/message-types.js";

// A change to one workspace file as a unified diff (issue #27): the approval card of an
// edit_file / write_file call shows it before the call runs (computed from the file on disk) and
// after (what the call wrote). The diff is bounded, so a huge rewrite never makes a huge row:
// past MAX_DIFF_LINES lines or MAX_DIFF_CHARS characters the rest is left out and `truncated`
// says so (the raw arguments still hold the whole text).

/** Lines of context around each change, as `git diff` shows them. */
export const DIFF_CONTEXT_LINES = 3;
/** At most this many lines in all hunks together. */
export const MAX_DIFF_LINES = 2_000;
/** At most this many characters in all hunks together. */
export const MAX_DIFF_CHARS = 200_000;
/** Past this many changed lines the exact comparison gives up for a coarse one (see below). */
const MAX_EDIT_LENGTH = 5_000;
/** ...and past this many milliseconds: the comparison runs on the server's event loop. */
const MAX_DIFF_MS = 300;

/**
 * The diff from `before` to `after` of the file at `path`; `before` undefined: a new file (one
 * hunk of added lines). Line endings do not count as changes (CRLF and LF lines compare equal
 * and are shown without their "\r"). Pure and synchronous; never throws.
 */
export function fileDiff(path: string, before: string | undefined, after: string): FileDiff {
  const change = before === undefined ? "create" : "edit";
  const patch = structuredPatch(path, path, before ?? "", after, undefined, undefined, {
    context: DIFF_CONTEXT_LINES,
    stripTrailingCr: true,
    maxEditLength: MAX_EDIT_LENGTH,
    timeout: MAX_DIFF_MS,
  });
  const hunks = (patch === undefined ? [coarseHunk(before ?? "", after)] : patch.hunks).map(toHunk);
  // a new file has no old side: `@@ -0,0 +1,n @@`, as git writes it
  for (const hunk of hunks) if (before === undefined) hunk.old_start = 0;
  return bounded(path, change, hunks);
}

function toHunk(hunk: {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}): DiffHunk {
  return {
    old_start: hunk.oldStart,
    old_lines: hunk.oldLines,
    new_start: hunk.newStart,
    new_lines: hunk.newLines,
    // "\ No newline at end of file" is about the last byte, not a line a person reads
    lines: hunk.lines.filter((line) => !line.startsWith("\\")).map(stripCr),
  };
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n").map(stripCr);
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/** Every old line removed, every new line added: for a change too large to compare exactly. */
function coarseHunk(before: string, after: string) {
  const removed = splitLines(before);
  const added = splitLines(after);
  return {
    oldStart: removed.length === 0 ? 0 : 1,
    oldLines: removed.length,
    newStart: added.length === 0 ? 0 : 1,
    newLines: added.length,
    lines: [...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)],
  };
}

/** Counts the changed lines, then keeps hunks (and lines) while they fit the limits. */
function bounded(path: string, change: FileDiff["change"], hunks: DiffHunk[]): FileDiff {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  const kept: DiffHunk[] = [];
  let lines = 0;
  let chars = 0;
  let truncated = false;
  for (const hunk of hunks) {
    const room: string[] = [];
    for (const line of hunk.lines) {
      if (lines >= MAX_DIFF_LINES || chars + line.length > MAX_DIFF_CHARS) {
        truncated = true;
        break;
      }
      room.push(line);
      lines++;
      chars += line.length;
    }
    if (room.length > 0) kept.push(shortened(hunk, room));
    if (truncated) break;
  }
  return {
    path,
    change,
    added,
    removed,
    hunks: kept,
    ...(truncated ? { truncated: true } : {}),
  };
}

/** A hunk cut after `lines`, its counts made to match what is left. */
function shortened(hunk: DiffHunk, lines: string[]): DiffHunk {
  if (lines.length === hunk.lines.length) return hunk;
  const oldLines = lines.filter((l) => !l.startsWith("+")).length;
  const newLines = lines.filter((l) => !l.startsWith("-")).length;
  return { ...hunk, old_lines: oldLines, new_lines: newLines, lines };
}
