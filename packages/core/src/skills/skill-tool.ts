import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { z } from "zod";
import { type AnyAgentTool, defineTool, ToolError } from "../tools/tool.js";
import { parseFrontMatter } from "./front-matter.js";
import type { Skill, SkillSet } from "./skill-set.js";

// The `skill` tool (progressive disclosure): the system prompt lists only skills' names and
// descriptions; the model calls `skill` with a name to read that skill's instructions (its
// SKILL.md body) and the list of its other files, and with `file` to read one of them. Files are
// read only inside the skill's folder (symlinks resolved first), and at most SKILL_FILE_MAX_CHARS.

export const SKILL_TOOL = "skill";
export const SKILL_FILE_MAX_CHARS = 100_000;
export const SKILL_FILE_LIST_MAX = 200;

export const SkillParams = z.object({
  name: z.string().describe("the skill's name, as <available_skills> lists it"),
  file: z
    .string()
    .optional()
    .describe(
      "a file of the skill's folder to read (relative, as the skill's file list names it); " +
        "omit to load the skill's instructions",
    ),
});

export interface SkillToolDetails {
  skill: string;
  source: Skill["source"];
  /** the file read; absent for the instructions */
  file?: string;
  truncated: boolean;
}

/** The `skill` tool over `skills()` (asked at each call: skills may change while a session runs). */
export function createSkillTool(skills: () => SkillSet): AnyAgentTool {
  return defineTool({
    name: SKILL_TOOL,
    label: "Skill",
    description:
      "Load a skill listed in <available_skills>: without `file`, its instructions and the list " +
      "of its files; with `file`, one of those files. Load a skill before doing a task it covers.",
    parameters: SkillParams,
    category: "read",
    execute: async ({ name, file }) => {
      const set = skills();
      const skill = set.get(name.trim());
      if (skill === undefined) {
        const known = set.list().map((s) => s.name);
        throw ToolError.invalidArgs(
          `No skill named "${name}". ${known.length > 0 ? `Skills: ${known.join(", ")}.` : "There are no skills."}`,
        );
      }
      if (file === undefined || file.trim() === "" || file.trim() === "SKILL.md") {
        return instructions(skill);
      }
      return skillFile(skill, file.trim());
    },
  });
}

function instructions(skill: Skill) {
  let content: string;
  try {
    content = readFileSync(skill.path, "utf8");
  } catch (error) {
    throw ToolError.failed(`Cannot read ${skill.name}'s SKILL.md: ${(error as Error).message}`);
  }
  const parsed = parseFrontMatter(content);
  const body = (parsed.ok ? parsed.body : content).trim();
  const files = skillFiles(skill.dir);
  const { text, truncated } = bounded(body);
  const listing =
    files.length === 0
      ? ""
      : `\n\n## Files of this skill\nRead one with skill(name: "${skill.name}", file: <path>).\n${files.map((f) => `- ${f}`).join("\n")}`;
  return {
    content: [{ type: "text" as const, text: `# Skill: ${skill.name}\n\n${text}${listing}` }],
    details: { skill: skill.name, source: skill.source, truncated } satisfies SkillToolDetails,
  };
}

function skillFile(skill: Skill, file: string) {
  if (isAbsolute(file))
    throw ToolError.invalidArgs("`file` must be relative to the skill's folder");
  let root: string;
  let target: string;
  try {
    root = realpathSync(skill.dir);
    target = realpathSync(resolve(root, file));
  } catch {
    throw ToolError.invalidArgs(`The skill ${skill.name} has no file ${file}`);
  }
  const rel = relative(root, target);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw ToolError.invalidArgs("`file` must name a file inside the skill's folder");
  }
  if (!statSync(target).isFile()) throw ToolError.invalidArgs(`${file} is not a file`);
  const raw = readFileSync(target);
  if (raw.subarray(0, 8192).includes(0)) {
    throw ToolError.failed(`${file} is a binary file; only text files can be read`);
  }
  const { text, truncated } = bounded(raw.toString("utf8"));
  const path = rel.split(sep).join("/");
  return {
    content: [{ type: "text" as const, text }],
    details: {
      skill: skill.name,
      source: skill.source,
      file: path,
      truncated,
    } satisfies SkillToolDetails,
  };
}

function bounded(text: string): { text: string; truncated: boolean } {
  if (text.length <= SKILL_FILE_MAX_CHARS) return { text, truncated: false };
  return {
    text: `${text.slice(0, SKILL_FILE_MAX_CHARS)}\n\n[truncated at ${SKILL_FILE_MAX_CHARS} characters]`,
    truncated: true,
  };
}

/** The skill folder's files other than SKILL.md (no dot-files), relative, at most 200, depth 4. */
export function skillFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (folder: string, depth: number): void => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (out.length >= SKILL_FILE_LIST_MAX) return;
      if (entry.name.startsWith(".")) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (depth < 4) walk(path, depth + 1);
      } else if (entry.isFile()) {
        const rel = relative(dir, path).split(sep).join("/");
        if (rel !== "SKILL.md") out.push(rel);
      }
    }
  };
  walk(dir, 1);
  return out;
}
