import { readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseFrontMatter, requiredString } from "./front-matter.js";

// Skills (REQ-109–113): folders holding a SKILL.md whose front matter names the skill and says
// what it is for (Anthropic's Agent Skills format). Only names and descriptions go into the
// system prompt (`<available_skills>`); the body and the folder's other files are loaded on demand
// through the `skill` tool (skill-tool.ts): progressive disclosure.
//
// Where skills come from, in order, later overriding earlier by name (so the workspace wins):
// the user's ~/.arbor/skills/, <workspace>/.claude/skills/, <workspace>/.arbor/skills/.
// A directory that does not exist is skipped silently; a malformed SKILL.md is reported with its
// reason (SkillSet.problems) and skipped.

export type SkillSource = "user" | "claude" | "arbor";

export interface SkillDir {
  dir: string;
  source: SkillSource;
}

export interface Skill {
  name: string;
  description: string;
  /** the skill's folder (absolute) */
  dir: string;
  /** its SKILL.md (absolute) */
  path: string;
  source: SkillSource;
}

export interface SkillProblem {
  /** the SKILL.md (absolute) */
  path: string;
  source: SkillSource;
  reason: string;
}

/** Agent Skills' limits: a name of lowercase letters, digits and hyphens (≤ 64), a description ≤ 1024. */
export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const MAX_SKILL_DESCRIPTION = 1024;

/** The three skill directories, in override order (later wins). */
export function defaultSkillDirs(workspace: string | undefined, home = homedir()): SkillDir[] {
  return [
    { dir: join(home, ".arbor", "skills"), source: "user" },
    ...(workspace
      ? [
          { dir: join(workspace, ".claude", "skills"), source: "claude" as const },
          { dir: join(workspace, ".arbor", "skills"), source: "arbor" as const },
        ]
      : []),
  ];
}

/** A SKILL.md's parse: the skill, or why it is malformed. */
export function parseSkillFile(
  content: string,
  where: { dir: string; path: string; source: SkillSource },
): { ok: true; skill: Skill; body: string } | { ok: false; reason: string } {
  const parsed = parseFrontMatter(content);
  if (!parsed.ok) return { ok: false, reason: parsed.error.reason };
  const name = requiredString(parsed.data, "name");
  if (!name.ok) return { ok: false, reason: name.error.reason };
  const description = requiredString(parsed.data, "description");
  if (!description.ok) return { ok: false, reason: description.error.reason };
  if (!SKILL_NAME_PATTERN.test(name.value)) {
    return {
      ok: false,
      reason: `\`name\` "${name.value}" must be lowercase letters, digits and hyphens (at most 64)`,
    };
  }
  if (description.value.length > MAX_SKILL_DESCRIPTION) {
    return {
      ok: false,
      reason: `\`description\` is longer than ${MAX_SKILL_DESCRIPTION} characters`,
    };
  }
  return {
    ok: true,
    skill: { name: name.value, description: description.value, ...where },
    body: parsed.body,
  };
}

/** The skills found, by name, with the problems met on the way. Immutable. */
export class SkillSet {
  readonly #skills: ReadonlyMap<string, Skill>;
  readonly problems: readonly SkillProblem[];

  constructor(skills: Iterable<Skill> = [], problems: readonly SkillProblem[] = []) {
    const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#skills = new Map(sorted.map((s) => [s.name, s]));
    this.problems = problems;
  }

  /** REQ-109: every directory in order; missing ones skipped; later directories win a name. */
  static load(dirs: readonly SkillDir[], read: SkillFileReader = readSkillFile): SkillSet {
    return dirs.reduce((set, dir) => set.merge(SkillSet.loadDir(dir, read)), new SkillSet());
  }

  /** REQ-112: the skills of one directory (its subfolders holding a SKILL.md). */
  static loadDir(dir: SkillDir, read: SkillFileReader = readSkillFile): SkillSet {
    let entries: string[];
    try {
      entries = readdirSync(dir.dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() || e.isSymbolicLink())
        .map((e) => e.name)
        .filter((name) => !name.startsWith("."))
        .sort();
    } catch {
      return new SkillSet(); // a missing (or unreadable) directory: skipped silently
    }
    const skills = new Map<string, Skill>();
    const problems: SkillProblem[] = [];
    for (const entry of entries) {
      const folder = join(dir.dir, entry);
      const path = join(folder, "SKILL.md");
      const content = read(path);
      if (content === undefined) continue; // a folder without SKILL.md is not a skill
      const parsed = parseSkillFile(content, { dir: folder, path, source: dir.source });
      if (!parsed.ok) {
        problems.push({ path, source: dir.source, reason: parsed.reason });
        continue;
      }
      const clash = skills.get(parsed.skill.name);
      if (clash) {
        problems.push({
          path,
          source: dir.source,
          reason: `the name "${parsed.skill.name}" is taken by ${clash.path} in the same directory`,
        });
        continue;
      }
      skills.set(parsed.skill.name, parsed.skill);
    }
    return new SkillSet(skills.values(), problems);
  }

  /** REQ-112: `other`'s skills override this set's on a name clash; problems of both are kept. */
  merge(other: SkillSet): SkillSet {
    const merged = new Map(this.#skills);
    for (const skill of other.list()) merged.set(skill.name, skill);
    return new SkillSet(merged.values(), [...this.problems, ...other.problems]);
  }

  /** Sorted by name. */
  list(): Skill[] {
    return [...this.#skills.values()];
  }

  get(name: string): Skill | undefined {
    return this.#skills.get(name);
  }

  get size(): number {
    return this.#skills.size;
  }

  /**
   * REQ-111: the `<available_skills>` block, one `<skill>` per skill sorted by name, every value
   * XML-escaped; "" when there are none. Deterministic (no paths, no dates).
   */
  formatForPrompt(): string {
    if (this.#skills.size === 0) return "";
    const entries = this.list().map(
      (s) =>
        `<skill>\n<name>${escapeXml(s.name)}</name>\n<description>${escapeXml(s.description)}</description>\n</skill>`,
    );
    return ["<available_skills>", ...entries, "</available_skills>"].join("\n");
  }
}

/** Reads a SKILL.md; undefined when there is none. */
export type SkillFileReader = (path: string) => string | undefined;

export function readSkillFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Reads text files again only when their mtime or size changed since the last read (undefined:
 * no such file). Skill and agent libraries re-read their folders before each message with it.
 */
export class ChangedFileReader {
  readonly #cache = new Map<string, { stamp: string; content: string | undefined }>();

  read(path: string): string | undefined {
    let stamp: string;
    try {
      const stat = statSync(path);
      if (!stat.isFile()) return undefined;
      stamp = `${stat.mtimeMs}:${stat.size}`;
    } catch {
      this.#cache.delete(path);
      return undefined;
    }
    const cached = this.#cache.get(path);
    if (cached?.stamp === stamp) return cached.content;
    const content = readSkillFile(path);
    this.#cache.set(path, { stamp, content });
    return content;
  }
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/**
 * The skills of a set of directories, re-read when asked (cheap: a directory listing each, and a
 * SKILL.md read only when its mtime or size changed). `version()` grows whenever the set of skills
 * (names, descriptions, places) or its problems change, for tool registries that cache.
 */
export class SkillLibrary {
  readonly dirs: readonly SkillDir[];
  readonly #files = new ChangedFileReader();
  #signature = "";
  #version = 0;
  #current = new SkillSet();

  constructor(dirs: readonly SkillDir[]) {
    this.dirs = dirs;
  }

  /** Reads the directories now and returns the set. */
  load(): SkillSet {
    const set = SkillSet.load(this.dirs, (path) => this.#files.read(path));
    const signature = JSON.stringify([
      set.list().map((s) => [s.name, s.description, s.path]),
      set.problems,
    ]);
    if (signature !== this.#signature) {
      this.#signature = signature;
      this.#version++;
    }
    this.#current = set;
    return set;
  }

  /** The set of the last `load()`. */
  current(): SkillSet {
    return this.#current;
  }

  version(): number {
    return this.#version;
  }
}
