import { realpathSync } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { MAX_PATH_CHARS } from "../model/limits.js";
import { ToolError } from "./tool.js";

// Workspace confinement for the built-in tools. Every path a tool touches goes through
// `Workspace.resolve`, which refuses anything that lands outside the workspace root either
// lexically (`..`, an absolute path elsewhere, `~`) or physically (a symlink somewhere in the
// existing part of the path whose real target is outside). Tools then do their I/O on the
// *resolved real path*, never on the raw input, so what was checked is what gets touched.
// Inside the workspace, the refused directories (Arbor's data directory, when it lies in the
// workspace: its database, its install token) are refused the same way, lexically and physically,
// and every walk (list_files, search, the file picker, the codebase index) leaves them out.

/** A path inside the workspace. */
export interface WorkspacePath {
  /** the real absolute path to do I/O on (symlinks in the existing part resolved) */
  absolute: string;
  /** the path relative to the workspace root, with `/` separators; "." for the root itself */
  relative: string;
}

/** How many symlinks may be followed while resolving one path (Linux's own limit is 40). */
const MAX_SYMLINK_HOPS = 40;

export { MAX_PATH_CHARS };

/** A directory no file tool touches, wherever the workspace is (see refuseInWorkspaces). */
export interface RefusedDir {
  /** the directory as given, made absolute */
  lexical: string;
  /** its real path (symlinks resolved) when it exists, else `lexical` */
  real: string;
  /** what it is, for the refusal: "Arbor's data directory" */
  what: string;
}

// On globalThis, not in this module: a bundler may load two copies of this module (the Next
// server's route bundles), and every copy must refuse what the runtime registered.
const REFUSED_KEY = Symbol.for("arbor.refusedDirs");
function refusedList(): RefusedDir[] {
  const holder = globalThis as { [REFUSED_KEY]?: RefusedDir[] };
  holder[REFUSED_KEY] ??= [];
  return holder[REFUSED_KEY];
}

/**
 * From now on, in this process, every Workspace refuses `dir` and everything below it, and the
 * walks leave it out: the runtime registers its data directory once at start. `dir` should exist
 * (its real path is taken now, so a symlink to it is caught too).
 */
export function refuseInWorkspaces(dir: string, what = "Arbor's data directory"): void {
  const lexical = path.resolve(dir);
  let real = lexical;
  try {
    real = realpathSync(lexical);
  } catch {
    // not there (yet): refused by its lexical path
  }
  const list = refusedList();
  if (!list.some((d) => d.lexical === lexical && d.real === real)) {
    list.push({ lexical, real, what });
  }
}

/** The directories registered with refuseInWorkspaces. */
export function refusedDirs(): readonly RefusedDir[] {
  return refusedList();
}

/** The refused directory `absolute` is (or lies in), by its lexical or its real path. */
export function refusedDirOf(absolute: string): RefusedDir | undefined {
  return refusedList().find((d) => isInside(d.real, absolute) || isInside(d.lexical, absolute));
}

/** A refusal that names the path, the directory and what it is. */
function refusal(input: string, dir: RefusedDir): ToolError {
  return ToolError.failed(
    `refused: '${input}' is ${dir.what} (${dir.lexical}); the file tools never read, write or list it.`,
  );
}

export class Workspace {
  /** the workspace root as configured, made absolute */
  readonly root: string;
  private realRoot: Promise<string> | undefined;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /**
   * Resolves `input` (relative to the root, or absolute) to a path inside the workspace.
   * The path need not exist (write_file creates files), but whatever part of it exists is
   * resolved through symlinks. Throws ToolError.failed naming the path and the root when the
   * path escapes the workspace.
   */
  async resolve(input: string): Promise<WorkspacePath> {
    if (input.length > MAX_PATH_CHARS) {
      throw ToolError.failed(
        `Path is too long (${input.length} characters; at most ${MAX_PATH_CHARS} are accepted).`,
      );
    }
    if (input.includes("\0")) throw ToolError.failed("Path contains a NUL character.");
    const realRoot = await this.getRealRoot();
    const expanded = expandHome(input);
    const lexical = path.resolve(this.root, expanded);
    if (!isInside(this.root, lexical) && !isInside(realRoot, lexical)) {
      throw ToolError.failed(
        `Path '${input}' is outside the workspace root '${this.root}'. Only paths inside the workspace may be used.`,
      );
    }
    let real: string;
    try {
      const base = isInside(this.root, lexical) ? this.root : realRoot;
      real = await resolveExisting(lexical, realRoot, path.relative(base, lexical));
    } catch (err) {
      if (err instanceof ToolError) throw err;
      throw fsError(err, input);
    }
    if (!isInside(realRoot, real)) {
      throw ToolError.failed(
        `Path '${input}' resolves through a symlink to '${real}', which is outside the workspace root '${this.root}'.`,
      );
    }
    const refused = refusedDirOf(lexical) ?? refusedDirOf(real);
    if (refused !== undefined) throw refusal(input, refused);
    const relative = path.relative(realRoot, real).split(path.sep).join("/");
    return { absolute: real, relative: relative === "" ? "." : relative };
  }

  /** The real path of the root; cached once it has been found (retried while it is missing). */
  getRealRoot(): Promise<string> {
    if (!this.realRoot) {
      const pending = realpath(this.root).catch((err: unknown) => {
        this.realRoot = undefined;
        throw ToolError.failed(
          `Workspace root '${this.root}' is not accessible: ${errorMessage(err)}`,
        );
      });
      this.realRoot = pending;
    }
    return this.realRoot;
  }
}

function expandHome(input: string): string {
  if (input === "~") return homedir();
  if (input.startsWith("~/")) return path.join(homedir(), input.slice(2));
  return input;
}

/** True when `candidate` is `root` or below it (both absolute and normalized). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * realpath that tolerates a missing tail: the existing prefix is resolved through symlinks and
 * the missing components are appended. A dangling symlink is followed to its target, so a file
 * to be created through a link pointing outside is caught too.
 *
 * One realpath for a path that exists (the common case); otherwise one walk down from the real
 * root over `relative`'s components, one lstat per existing component and none once a component
 * is missing. (Walking up from the full path instead, one realpath per missing level, was
 * quadratic: a 100 KB path of `a/a/a/…` kept a core busy for a minute.)
 */
async function resolveExisting(
  lexical: string,
  realRoot: string,
  relative: string,
): Promise<string> {
  try {
    return await realpath(lexical);
  } catch (err) {
    const code = errorCode(err);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
  }
  // components still to walk, the next one last
  const pending = relative.split(path.sep).filter((part) => part !== "" && part !== ".");
  pending.reverse();
  let current = realRoot;
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.pop() as string;
    if (part === ".") continue;
    if (part === "..") {
      current = path.dirname(current);
      continue;
    }
    const candidate = path.join(current, part);
    const stats = await lstat(candidate).catch((err: unknown) => {
      const code = errorCode(err);
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw err;
    });
    if (stats === undefined) {
      // nothing below a missing component exists: the rest is appended in one join
      return path.join(candidate, ...pending.reverse());
    }
    if (stats.isSymbolicLink()) {
      hops++;
      if (hops > MAX_SYMLINK_HOPS) {
        throw ToolError.failed(`Too many levels of symbolic links: ${lexical}`);
      }
      const target = await readlink(candidate);
      if (path.isAbsolute(target)) current = path.parse(target).root;
      const parts = target.split(path.sep).filter((p) => p !== "" && p !== ".");
      for (let k = parts.length - 1; k >= 0; k--) pending.push(parts[k] as string);
    } else {
      current = candidate;
    }
  }
  return current;
}

/**
 * Refuses a regular file with more than one hard link: its other names may lie outside the
 * workspace (a hard link made to ~/.ssh/id_rsa reads and edits that file), and nothing tells where
 * they are. Directories are not concerned (their link count counts subdirectories).
 */
export function refuseHardLinks(
  stats: { nlink: number; isFile(): boolean },
  displayPath: string,
): void {
  if (stats.isFile() && stats.nlink > 1) {
    throw ToolError.failed(
      `refused: ${displayPath} has ${stats.nlink} hard links; another name may lie outside the workspace`,
    );
  }
}

/** The `code` of a Node system error, if any. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err === "object" && err !== null && "code" in err) {
    const code = (err as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Turns a file-system error into a ToolError with a short message naming the path (no stack
 * traces reach the model). A ToolError passes through unchanged.
 */
export function fsError(err: unknown, displayPath: string): ToolError {
  if (err instanceof ToolError) return err;
  switch (errorCode(err)) {
    case "ENOENT":
      return ToolError.failed(`File not found: ${displayPath}`);
    case "EISDIR":
      return ToolError.failed(`Is a directory, not a file: ${displayPath}`);
    case "ENOTDIR":
      return ToolError.failed(
        `Not a directory (a component of the path is a file): ${displayPath}`,
      );
    case "EACCES":
    case "EPERM":
      return ToolError.failed(`Permission denied: ${displayPath}`);
    case "ELOOP":
      return ToolError.failed(`Too many levels of symbolic links: ${displayPath}`);
    case "ENAMETOOLONG":
      return ToolError.failed(`File name too long: ${displayPath}`);
    case "ENOSPC":
      return ToolError.failed(`No space left on device while writing ${displayPath}`);
    default:
      return ToolError.failed(`I/O error on ${displayPath}: ${errorMessage(err)}`);
  }
}

/** REQ-100/103/104: tools call this before each I/O step. */
export function throwIfCancelled(signal: AbortSignal, what = "Operation"): void {
  if (signal.aborted) throw ToolError.cancelled(`${what} cancelled.`);
}
