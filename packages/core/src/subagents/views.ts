import type { AgentsResponse, SkillsResponse } from "../protocol/extensions.js";
import type { SkillSet } from "../skills/skill-set.js";
import type { ExtensionKind, ExtensionSwitches } from "../skills/switches.js";
import type { AgentDefinitions } from "./agent-files.js";

// The wire views of GET /api/skills and GET /api/agents: everything found, each with whether it
// is switched on (`switches` absent: all are).

function switchView(switches: ExtensionSwitches | undefined, kind: ExtensionKind, name: string) {
  const off = switches?.disabled(kind, name);
  return {
    enabled: off === undefined,
    disabled_by: off === undefined ? null : { id: off.by.id, name: off.by.name },
    disabled_at: off === undefined ? null : new Date(off.at).toISOString(),
  };
}

export function skillsResponse(set: SkillSet, switches?: ExtensionSwitches): SkillsResponse {
  return {
    skills: set.list().map(({ name, description, source, path }) => ({
      name,
      description,
      source,
      path,
      ...switchView(switches, "skill", name),
    })),
    problems: set.problems.map(({ path, source, reason }) => ({ path, source, reason })),
  };
}

export function agentsResponse(
  definitions: AgentDefinitions,
  switches?: ExtensionSwitches,
): AgentsResponse {
  return {
    agents: definitions.agents.map((a) => ({
      name: a.name,
      description: a.description,
      source: a.source,
      path: a.path,
      tools: a.tools ?? null,
      model: a.model ?? null,
      ...switchView(switches, "agent", a.name),
    })),
    problems: definitions.problems.map(({ path, source, reason }) => ({ path, source, reason })),
  };
}
