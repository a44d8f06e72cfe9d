import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { type SessionLoopTree, SessionLoopTreeSchema } from "../model/loop-records.js";

// REQ-216/217: a file-based session store for library users without a database. One file per
// session, `{dir}/{session_id}.json`, pretty-printed so a person can read it, in one flat
// directory. Arbor's server keeps loop records in its database (store/); this is for an Agent
// used as a library (docs/concepts/sessions.md, "Persistence API").

/** not_found: no file for the id; invalid_id: an id that is not a plain file name; invalid_file: not a session */
export type SessionFileErrorKind = "not_found" | "invalid_id" | "invalid_file";

export class SessionFileError extends Error {
  readonly kind: SessionFileErrorKind;
  readonly sessionId: string;

  constructor(kind: SessionFileErrorKind, sessionId: string, message: string) {
    super(message);
    this.name = "SessionFileError";
    this.kind = kind;
    this.sessionId = sessionId;
  }
}

const SUFFIX = ".json";

/**
 * Session ids become file names: only letters, digits, `.`, `_` and `-`, never `.` or `..`, so an
 * id can never name a file outside `dir` (a UUID, the Agent's ids, always passes).
 */
function fileOf(dir: string, sessionId: string): string {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(sessionId) || /^\.+$/.test(sessionId)) {
    throw new SessionFileError(
      "invalid_id",
      sessionId,
      `session id ${JSON.stringify(sessionId)} cannot be a file name (letters, digits, ".", "_", "-" only)`,
    );
  }
  return join(dir, `${sessionId}${SUFFIX}`);
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/**
 * Writes the session to `{dir}/{sessionId}.json` (creating `dir`), replacing an earlier save.
 * The file is written whole under a temporary name and renamed, so a reader never sees half.
 */
export async function saveSession(dir: string, session: SessionLoopTree): Promise<void> {
  const file = fileOf(dir, session.sessionId);
  const checked = SessionLoopTreeSchema.parse(session);
  await mkdir(dir, { recursive: true });
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(checked, null, 2)}\n`, "utf8");
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Reads one session; SessionFileError not_found when it was never saved (or was deleted). */
export async function loadSession(dir: string, sessionId: string): Promise<SessionLoopTree> {
  const file = fileOf(dir, sessionId);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (isMissing(error)) {
      throw new SessionFileError("not_found", sessionId, `no session ${sessionId} in ${dir}`);
    }
    throw error;
  }
  return parseFile(text, sessionId, file);
}

function parseFile(text: string, sessionId: string, file: string): SessionLoopTree {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new SessionFileError(
      "invalid_file",
      sessionId,
      `${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const parsed = SessionLoopTreeSchema.safeParse(raw);
  if (!parsed.success) {
    throw new SessionFileError(
      "invalid_file",
      sessionId,
      `${file} is not a session:\n${z.prettifyError(parsed.error)}`,
    );
  }
  // a file renamed by hand would otherwise load under the wrong id
  if (parsed.data.sessionId !== sessionId) {
    throw new SessionFileError(
      "invalid_file",
      sessionId,
      `${file} holds session ${parsed.data.sessionId}, not ${sessionId}`,
    );
  }
  return parsed.data;
}

/** The saved sessions' ids, newest first (by the file's modification time); [] when `dir` is absent. */
export async function listSessionIds(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const files = await Promise.all(
    names
      .filter((name) => name.endsWith(SUFFIX) && name.length > SUFFIX.length)
      .map(async (name) => {
        const info = await stat(join(dir, name)).catch((error: unknown) => {
          // deleted between the listing and now
          if (isMissing(error)) return undefined;
          throw error;
        });
        return info?.isFile()
          ? [{ id: name.slice(0, -SUFFIX.length), modified: info.mtimeMs }]
          : [];
      }),
  );
  return files
    .flat()
    .sort((a, b) => b.modified - a.modified || a.id.localeCompare(b.id))
    .map((file) => file.id);
}

/**
 * Every saved session of one agent (`agentId`), newest first. Reads every file in `dir`; one that
 * is not a session fails the call (SessionFileError invalid_file names it) rather than being
 * skipped unseen.
 */
export async function loadSessionsForAgent(
  dir: string,
  agentId: string,
): Promise<SessionLoopTree[]> {
  const sessions: SessionLoopTree[] = [];
  for (const id of await listSessionIds(dir)) {
    const session = await loadSession(dir, id).catch((error: unknown) => {
      if (error instanceof SessionFileError && error.kind === "not_found") return undefined;
      throw error;
    });
    if (session?.agentId === agentId) sessions.push(session);
  }
  return sessions;
}

/** Removes a saved session; SessionFileError not_found when there is none. */
export async function deleteSession(dir: string, sessionId: string): Promise<void> {
  const file = fileOf(dir, sessionId);
  try {
    await unlink(file);
  } catch (error) {
    if (isMissing(error)) {
      throw new SessionFileError("not_found", sessionId, `no session ${sessionId} in ${dir}`);
    }
    throw error;
  }
}
