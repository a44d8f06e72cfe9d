import { readdirSync } from "node:fs";
import { join } from "node:path";
import { parseFrontMatter, requiredString } from "../skills/front-matter.js";
import { ChangedFileReader, readSkillFile } from "../skills/skill-set.js";

// Agent files: sub-agents users define as Markdown with YAML front matter (`name`, `description`,
// `tools`, `model`) and the system prompt as the body: the shape of Claude Code's
// `.claude/agents/*.md`. Read from <workspace>/.claude/agents/ and <workspace>/.arbor/agents/, in
// that order, the later winning a name clash (`.arbor/agents` wins). Each becomes a tool the
// model can call (session-agents.ts in context/session binds them to a session).
//
// - `tools` omitted: the parent's tools. Given (a comma-separated string or a YAML list): those
//   tools only, Claude Code's names mapped to Arbor's (CLAUDE_TOOL_NAMES); other names are taken
//   as Arbor tool names (an MCP tool, find_definition, …). An empty list: no tools.
// - `model` omitted or `inherit`: the session's model; `<protocol>/<model>` another provider
//   (with that provider's key from the environment); any other value a model id on the session's
//   provider; Claude Code's aliases (sonnet, opus, haiku) map to Anthropic models on Anthropic and
//   to the session's model elsewhere (noted).
// A malformed file is reported with its reason and skipped; missing directories are skipped.

export type AgentSource = "claude" | "arbor";

export interface AgentDir {
  dir: string;
  source: AgentSource;
}

export interface AgentDefinition {
  name: string;
  description: string;
  /** the body: the sub-agent's system prompt */
  systemPrompt: string;
  /** Arbor tool names; undefined: the parent's tools */
  tools?: string[];
  /** as written (`inherit` → undefined) */
  model?: string;
  path: string;
  source: AgentSource;
}

export interface AgentProblem {
  path: string;
  source: AgentSource;
  reason: string;
}

/** Claude Code's tool names → Arbor's built-ins. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Bash: "bash",
  Grep: "search",
  Glob: "list_files",
  LS: "list_files",
});

/** A tool name the model can call: letters, digits, `_` and `-`, at most 64. */
export const AGENT_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function defaultAgentDirs(workspace: string): AgentDir[] {
  return [
    { dir: join(workspace, ".claude", "agents"), source: "claude" },
    { dir: join(workspace, ".arbor", "agents"), source: "arbor" },
  ];
}

export function parseAgentFile(
  content: string,
  where: { path: string; source: AgentSource },
): { ok: true; agent: AgentDefinition } | { ok: false; reason: string } {
  const parsed = parseFrontMatter(content);
  if (!parsed.ok) return { ok: false, reason: parsed.error.reason };
  const { data } = parsed;
  const name = requiredString(data, "name");
  if (!name.ok) return { ok: false, reason: name.error.reason };
  if (!AGENT_NAME_PATTERN.test(name.value)) {
    return {
      ok: false,
      reason: `\`name\` "${name.value}" must be letters, digits, \`_\` or \`-\` (at most 64): it becomes a tool name`,
    };
  }
  const description = requiredString(data, "description");
  if (!description.ok) return { ok: false, reason: description.error.reason };
  const tools = toolList(data.tools);
  if (!tools.ok) return { ok: false, reason: tools.reason };
  let model: string | undefined;
  if (data.model !== undefined && data.model !== null) {
    if (typeof data.model !== "string") return { ok: false, reason: "`model` must be a string" };
    const trimmed = data.model.trim();
    model = trimmed === "" || trimmed === "inherit" ? undefined : trimmed;
  }
  return {
    ok: true,
    agent: {
      name: name.value,
      description: description.value,
      systemPrompt: parsed.body.trim(),
      ...(tools.tools !== undefined ? { tools: tools.tools } : {}),
      ...(model !== undefined ? { model } : {}),
      ...where,
    },
  };
}

function toolList(
  value: unknown,
): { ok: true; tools: string[] | undefined } | { ok: false; reason: string } {
  if (value === undefined || value === null) return { ok: true, tools: undefined };
  let names: unknown[];
  if (typeof value === "string") names = value.split(",");
  else if (Array.isArray(value)) names = value;
  else return { ok: false, reason: "`tools` must be a comma-separated string or a list" };
  const tools: string[] = [];
  for (const raw of names) {
    if (typeof raw !== "string") return { ok: false, reason: "`tools` must list tool names" };
    const name = raw.trim();
    if (name === "") continue;
    const mapped = CLAUDE_TOOL_NAMES[name] ?? name;
    if (!tools.includes(mapped)) tools.push(mapped);
  }
  return { ok: true, tools };
}

export interface AgentDefinitions {
  /** sorted by name */
  agents: AgentDefinition[];
  problems: AgentProblem[];
}

/** Every directory in order; later directories win a name; missing ones skipped. */
export function loadAgentDefinitions(
  dirs: readonly AgentDir[],
  read: (path: string) => string | undefined = readSkillFile,
): AgentDefinitions {
  const byName = new Map<string, AgentDefinition>();
  const problems: AgentProblem[] = [];
  for (const dir of dirs) {
    let files: string[];
    try {
      files = readdirSync(dir.dir, { withFileTypes: true })
        .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith(".md"))
        .map((e) => e.name)
        .sort();
    } catch {
      continue;
    }
    const own = new Set<string>();
    for (const file of files) {
      const path = join(dir.dir, file);
      const content = read(path);
      if (content === undefined) continue;
      const parsed = parseAgentFile(content, { path, source: dir.source });
      if (!parsed.ok) {
        problems.push({ path, source: dir.source, reason: parsed.reason });
        continue;
      }
      if (own.has(parsed.agent.name)) {
        problems.push({
          path,
          source: dir.source,
          reason: `the name "${parsed.agent.name}" is taken by another file in the same directory`,
        });
        continue;
      }
      own.add(parsed.agent.name);
      byName.set(parsed.agent.name, parsed.agent);
    }
  }
  const agents = [...byName.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return { agents, problems };
}

/**
 * The definitions without the agents whose name another tool of the session already has: a
 * sub-agent is a tool, and the registry gives a name to the tool listed first (built-ins, MCP
 * and OpenAPI tools, the skill tool), so such an agent could never be called. Each one becomes a
 * problem naming the tool it clashes with, so the listing (GET /api/agents, the settings) says why
 * it is not offered instead of dropping it silently. `ownerOf` describes what has a name
 * ("the built-in tool", …), or undefined when the name is free.
 */
export function withoutShadowedAgents(
  definitions: AgentDefinitions,
  ownerOf: (name: string) => string | undefined,
): AgentDefinitions {
  const agents: AgentDefinition[] = [];
  const problems = [...definitions.problems];
  for (const agent of definitions.agents) {
    const owner = ownerOf(agent.name);
    if (owner === undefined) {
      agents.push(agent);
      continue;
    }
    problems.push({
      path: agent.path,
      source: agent.source,
      reason: `the name "${agent.name}" is taken by ${owner}, which keeps it: this sub-agent is not offered. Rename it (\`name\` in the front matter).`,
    });
  }
  return { agents, problems };
}

/**
 * The agent files of some directories, re-read when asked (a listing per directory, a file read
 * only when its mtime or size changed). `version()` grows whenever the definitions change.
 */
export class AgentLibrary {
  readonly dirs: readonly AgentDir[];
  readonly #files = new ChangedFileReader();
  #signature = "";
  #version = 0;
  #current: AgentDefinitions = { agents: [], problems: [] };

  constructor(dirs: readonly AgentDir[]) {
    this.dirs = dirs;
  }

  load(): AgentDefinitions {
    const loaded = loadAgentDefinitions(this.dirs, (path) => this.#files.read(path));
    const signature = JSON.stringify(loaded);
    if (signature !== this.#signature) {
      this.#signature = signature;
      this.#version++;
      this.#current = loaded;
    }
    return this.#current;
  }

  current(): AgentDefinitions {
    return this.#current;
  }

  version(): number {
    return this.#version;
  }
}
