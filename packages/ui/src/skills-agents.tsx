"use client";

import type { AgentsResponse, SkillsResponse } from "@arbor/core";
import type { ReactNode } from "react";
import { badgeClass } from "./styles.js";

// The skills and sub-agents the workspace's sessions use (GET /api/skills, GET /api/agents), as
// the settings show them: each by name with its description and where it was found, and every
// file that is not used (malformed, or an agent whose name another tool keeps) with the reason.

type Problem = SkillsResponse["problems"][number];

const sourceLabel: Record<string, string> = {
  user: "~/.arbor/skills",
  claude: ".claude",
  arbor: ".arbor",
};

function Problems({ problems, testId }: { problems: readonly Problem[]; testId: string }) {
  if (problems.length === 0) return null;
  return (
    <ul className="mt-1 flex flex-col gap-1" aria-label="Files not used">
      {problems.map((p) => (
        <li
          key={p.path}
          data-testid={testId}
          className="rounded-md border border-red-200 p-2 text-xs dark:border-red-900"
        >
          <p className="truncate font-medium text-red-700 dark:text-red-400" title={p.path}>
            {p.path}
          </p>
          <p className="break-words text-red-700 dark:text-red-400">{p.reason}</p>
        </li>
      ))}
    </ul>
  );
}

export interface SkillListProps {
  skills: SkillsResponse | undefined;
}

/** One skill or agent file found: its name, where it came from, its description. */
function FoundItem({
  found,
  testId,
  children,
}: {
  found: { name: string; description: string; path: string; source: string };
  testId: string;
  children?: ReactNode;
}) {
  return (
    <li data-testid={testId} className="rounded-md border border-zinc-200 p-2 dark:border-zinc-700">
      <div className="flex items-center gap-2">
        <span className="min-w-0 flex-1 truncate text-sm font-medium">{found.name}</span>
        <span
          className={`${badgeClass} bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300`}
          title={found.path}
        >
          {sourceLabel[found.source] ?? found.source}
        </span>
      </div>
      <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">{found.description}</p>
      {children}
    </li>
  );
}

export function SkillList({ skills }: SkillListProps) {
  if (skills === undefined) return null;
  return (
    <div className="flex flex-col gap-1">
      {skills.skills.length === 0 ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="skills-empty">
          No skills. Add folders with a SKILL.md to .arbor/skills or .claude/skills in the
          workspace, or to ~/.arbor/skills.
        </p>
      ) : (
        <ul className="flex flex-col gap-1" aria-label="Skills">
          {skills.skills.map((skill) => (
            <FoundItem key={skill.name} testId="skill" found={skill} />
          ))}
        </ul>
      )}
      <Problems problems={skills.problems} testId="skill-problem" />
    </div>
  );
}

export interface AgentListProps {
  agents: AgentsResponse | undefined;
}

export function AgentList({ agents }: AgentListProps) {
  if (agents === undefined) return null;
  return (
    <div className="flex flex-col gap-1">
      {agents.agents.length === 0 ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="agents-empty">
          No sub-agents. Add Markdown agent files to .arbor/agents or .claude/agents in the
          workspace.
        </p>
      ) : (
        <ul className="flex flex-col gap-1" aria-label="Sub-agents">
          {agents.agents.map((agent) => (
            <FoundItem key={agent.name} testId="agent" found={agent}>
              <p className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-500">
                tools: {agent.tools === null ? "the session's" : agent.tools.join(", ") || "none"}
                {" · "}model: {agent.model ?? "the session's"}
              </p>
            </FoundItem>
          ))}
        </ul>
      )}
      <Problems problems={agents.problems} testId="agent-problem" />
    </div>
  );
}
