import { z } from "zod";
import { PersonRefSchema } from "../model/person.js";
import { strictRequest } from "./strict.js";

// GET /api/skills and GET /api/agents (issue #14): the skills and agent files the workspace's
// sessions use, read afresh on each request, with every malformed file and the reason. Each one
// can be switched off by an admin (PATCH /api/skills/{name}, /api/agents/{name}; decision 0057).

/** Whether one is offered, and who switched it off. */
const switchFields = {
  enabled: z
    .boolean()
    .describe(
      "false: an admin switched it off in Settings; no session offers it (PATCH …/{name} switches it)",
    ),
  disabled_by: PersonRefSchema.nullable().describe("who switched it off; null while it is on"),
  disabled_at: z.string().nullable().describe("when it was switched off (ISO 8601); null while on"),
};

const ProblemSchema = z.object({
  path: z.string().describe("the file (absolute)"),
  source: z.string().describe("which directory it was found in (see `source` above)"),
  reason: z.string().describe('why it was skipped, e.g. "`name` is missing"'),
});

export const SkillsResponseSchema = z
  .object({
    skills: z
      .array(
        z.object({
          name: z.string(),
          description: z.string(),
          source: z
            .enum(["user", "claude", "arbor"])
            .describe(
              "user: ~/.arbor/skills; claude: <workspace>/.claude/skills; arbor: <workspace>/.arbor/skills (later ones override earlier by name)",
            ),
          path: z.string().describe("its SKILL.md"),
          ...switchFields,
        }),
      )
      .describe("the skills found, sorted by name; those switched off have `enabled: false`"),
    problems: z.array(ProblemSchema).describe("malformed SKILL.md files, skipped"),
  })
  .describe("Answer to GET /api/skills.");
export type SkillsResponse = z.infer<typeof SkillsResponseSchema>;

export const AgentsResponseSchema = z
  .object({
    agents: z
      .array(
        z.object({
          name: z.string().describe("the tool name the model calls it by"),
          description: z.string(),
          source: z
            .enum(["claude", "arbor"])
            .describe(
              "claude: <workspace>/.claude/agents; arbor: <workspace>/.arbor/agents (wins a name clash)",
            ),
          path: z.string(),
          tools: z
            .array(z.string())
            .nullable()
            .describe("Arbor tool names (Claude Code's mapped); null: the parent's tools"),
          model: z.string().nullable().describe("null: the session's model"),
          ...switchFields,
        }),
      )
      .describe("the sub-agents, sorted by name; those switched off have `enabled: false`"),
    problems: z.array(ProblemSchema).describe("malformed agent files, skipped"),
  })
  .describe("Answer to GET /api/agents.");
export type AgentsResponse = z.infer<typeof AgentsResponseSchema>;

export const ExtensionSwitchRequestSchema = strictRequest(
  z
    .object({
      enabled: z
        .boolean()
        .describe(
          "false: no session offers it from its next turn, on every instance (it stays listed); true: offered again",
        ),
    })
    .describe("Body of PATCH /api/skills/{name} and PATCH /api/agents/{name}."),
);
export type ExtensionSwitchRequest = z.infer<typeof ExtensionSwitchRequestSchema>;
