import type { AgentsResponse, SkillsResponse } from "../protocol/extensions.js";
import type { SkillSet } from "../skills/skill-set.js";
import type { AgentDefinitions } from "./agent-files.js";

// The wire views of GET /api/skills and GET /api/agents.

export function skillsResponse(set: SkillSet): SkillsResponse {
  return {
    skills: set.list().map(({ name, description, source, path }) => ({
      name,
      description,
      source,
      path,
    })),
    problems: set.problems.map(({ path, source, reason }) => ({ path, source, reason })),
  };
}

export function agentsResponse(definitions: AgentDefinitions): AgentsResponse {
  return {
    agents: definitions.agents.map((a) => ({
      name: a.name,
      description: a.description,
      source: a.source,
      path: a.path,
      tools: a.tools ?? null,
      model: a.model ?? null,
    })),
    problems: definitions.problems.map(({ path, source, reason }) => ({ path, source, reason })),
  };
}
