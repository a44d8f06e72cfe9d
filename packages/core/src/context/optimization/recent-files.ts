import type { TokenCounter } from "../../agent/types.js";
import type { ContextMessage } from "../../model/message-types.js";
import { isMasked } from "./observation-masking.js";

// Re-reading recently used files after an optimization (issue #15, as Claude Code does): the files
// the summarized or masked messages read or changed, most recent first, at most
// MAX_RECENT_FILES, are read again AS THEY ARE NOW and put at the end of the newest summary,
// within the room the target leaves. Old contents are never kept: a file the kept messages still
// show in full is not repeated, and a summary made of this one drops the section (both
// summarizers skip it), so the model re-reads a file on demand rather than carrying stale copies.

export const MAX_RECENT_FILES = 5;
/** at most this share of the room the target leaves after the fixed part */
export const RECENT_FILES_SHARE = 0.25;
/** below this many tokens of room nothing is re-read */
const MIN_ROOM = 120;
export const RECENT_FILES_HEADING =
  "Files used recently, as they are now (read them again for the rest or for later changes):";

/** Reads workspace files for the model (confined, secrets redacted); undefined when unreadable. */
export type RecentFileReader = (path: string) => Promise<string | undefined>;

const FILE_TOOLS = new Set(["read_file", "edit_file", "write_file"]);

function pathsOf(message: ContextMessage): string[] {
  const body = message.body;
  if (body.message_type === "file_reference") return [body.path];
  if (body.message_type !== "tool_request") return [];
  return body.calls.flatMap((call) => {
    const path = call.arguments.path;
    return FILE_TOOLS.has(call.name) && typeof path === "string" && path ? [path] : [];
  });
}

/** The files `gone` (summarized or masked) used, newest first, not shown in full by `view`. */
export function recentFilePaths(
  gone: readonly ContextMessage[],
  view: readonly ContextMessage[],
): string[] {
  const shown = new Set<string>();
  const requestOf = new Map(view.map((m) => [m.id, m]));
  for (const message of view) {
    const body = message.body;
    if (body.message_type === "file_reference" && body.resolved) shown.add(body.path);
    if (
      body.message_type === "tool_result" &&
      body.tool_name === "read_file" &&
      !isMasked(message)
    ) {
      const request = requestOf.get(body.request_id);
      for (const path of request ? pathsOf(request) : []) shown.add(path);
    }
  }
  const out: string[] = [];
  for (let i = gone.length - 1; i >= 0 && out.length < MAX_RECENT_FILES; i--) {
    for (const path of pathsOf(gone[i]!).reverse()) {
      if (!shown.has(path) && !out.includes(path) && out.length < MAX_RECENT_FILES) out.push(path);
    }
  }
  return out;
}

/** Cuts `text` to its first lines within `tokens`, saying how many lines were left out. */
function head(text: string, tokens: number, counter: TokenCounter): string {
  if (counter.countText(text) <= tokens) return text;
  const lines = text.split("\n");
  let low = 0;
  let high = lines.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const cut = `${lines.slice(0, mid).join("\n")}\n[… ${lines.length - mid} more lines]`;
    if (counter.countText(cut) <= tokens) low = mid;
    else high = mid - 1;
  }
  return low === 0 ? "" : `${lines.slice(0, low).join("\n")}\n[… ${lines.length - low} more lines]`;
}

/**
 * The section to append to the newest summary: each file (newest first) as it is now, cut to
 * what fits `budget` tokens; undefined when nothing fits or nothing could be read.
 */
export async function recentFilesSection(
  paths: readonly string[],
  read: RecentFileReader,
  budget: number,
  counter: TokenCounter,
): Promise<{ text: string; files: string[] } | undefined> {
  if (paths.length === 0 || budget < MIN_ROOM) return undefined;
  let left = budget - counter.countText(RECENT_FILES_HEADING) - 4;
  const parts: string[] = [];
  const files: string[] = [];
  for (const path of paths) {
    if (left < MIN_ROOM / 2) break;
    const content = await read(path);
    if (content === undefined) continue;
    const label = `### ${path}\n`;
    const body = head(content.trimEnd(), left - counter.countText(label) - 2, counter);
    if (body === "") continue;
    const part = `${label}${body}`;
    left -= counter.countText(part) + 2;
    parts.push(part);
    files.push(path);
  }
  if (parts.length === 0) return undefined;
  return { text: `\n\n${RECENT_FILES_HEADING}\n${parts.join("\n\n")}`, files };
}

/** True for a summary holding re-read files (a section this module appended). */
export function hasRecentFiles(message: ContextMessage): boolean {
  const body = message.body;
  return (
    body.message_type === "system_control" &&
    body.kind === "summary" &&
    body.text.includes(`\n${RECENT_FILES_HEADING}\n`)
  );
}

/**
 * A summary's copy without its re-read files (a new id; it stands for the stored summary in the
 * record, as a masked tool result does): at the next optimization their contents are old.
 */
export function withoutRecentFiles(
  message: ContextMessage,
  id: string,
  now: string,
): ContextMessage | undefined {
  const body = message.body;
  if (body.message_type !== "system_control" || !hasRecentFiles(message)) return undefined;
  const { recent_files: files, ...data } = body.data ?? {};
  return {
    ...message,
    id,
    created_at: now,
    body: {
      ...body,
      text: body.text.slice(0, body.text.indexOf(`\n\n${RECENT_FILES_HEADING}\n`)).trimEnd(),
      data: { ...data, files_dropped_from: message.id, ...(files ? { old_files: files } : {}) },
    },
  };
}
