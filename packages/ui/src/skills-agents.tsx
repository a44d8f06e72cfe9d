"use client";

import type { AgentsResponse, SkillsResponse } from "@arbor/core/browser";
import type { ReactNode } from "react";
import { badgeClass } from "./styles.js";

// The skills and sub-agents the workspace's sessions use (GET /api/skills, GET /api/agents), as
// the settings show them: each by name with its description and where it was found, and every
// file that is not used (malformed, or an agent whose name another tool keeps) with the reason.
// Each one found has a switch for those who may configure the install (`onSetEnabled`; decision
// 0057); everyone else sees "Off" on those an admin switched off, and by whom.

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
  /** switches a skill on or off; absent: the person may not (the state is shown read-only) */
  onSetEnabled?: ((name: string, enabled: boolean) => void) | undefined;
}

interface Found {
  name: string;
  description: string;
  path: string;
  source: string;
  enabled: boolean;
  disabled_by: { id: string; name: string } | null;
}

/** One skill or agent file found: its name, where it came from, its description, its switch. */
function FoundItem({
  found,
  kind,
  testId,
  onSetEnabled,
  children,
}: {
  found: Found;
  /** "skill" or "sub-agent": the switch's accessible name says which */
  kind: string;
  testId: string;
  onSetEnabled?: ((name: string, enabled: boolean) => void) | undefined;
  children?: ReactNode;
}) {
  return (
    <li
      data-testid={testId}
      data-enabled={found.enabled}
      className="rounded-md border border-zinc-200 p-2 dark:border-zinc-700"
    >
      <div className="flex items-center gap-2">
        <span
          className={`min-w-0 flex-1 truncate text-sm font-medium ${found.enabled ? "" : "text-zinc-500 line-through dark:text-zinc-500"}`}
        >
          {found.name}
        </span>
        {!found.enabled && (
          <span
            className={`${badgeClass} bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300`}
            data-testid={`${testId}-off`}
          >
            Off
          </span>
        )}
        <span
          className={`${badgeClass} bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300`}
          title={found.path}
        >
          {sourceLabel[found.source] ?? found.source}
        </span>
        {onSetEnabled !== undefined && (
          <label className="flex items-center gap-1 text-xs">
            <input
              type="checkbox"
              role="switch"
              aria-checked={found.enabled}
              aria-label={`Use ${kind} ${found.name}`}
              checked={found.enabled}
              onChange={(event) => onSetEnabled(found.name, event.currentTarget.checked)}
            />
            On
          </label>
        )}
      </div>
      <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">{found.description}</p>
      {!found.enabled && (
        <p className="mt-0.5 text-xs text-amber-800 dark:text-amber-300">
          Switched off{found.disabled_by !== null ? ` by ${found.disabled_by.name}` : ""}: no
          session offers it.
        </p>
      )}
      {children}
    </li>
  );
}

export function SkillList({ skills, onSetEnabled }: SkillListProps) {
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
            <FoundItem
              key={skill.name}
              kind="skill"
              testId="skill"
              found={skill}
              onSetEnabled={onSetEnabled}
            />
          ))}
        </ul>
      )}
      <Problems problems={skills.problems} testId="skill-problem" />
    </div>
  );
}

export interface AgentListProps {
  agents: AgentsResponse | undefined;
  /** switches a sub-agent on or off; absent: the person may not (the state is shown read-only) */
  onSetEnabled?: ((name: string, enabled: boolean) => void) | undefined;
}

export function AgentList({ agents, onSetEnabled }: AgentListProps) {
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
            <FoundItem
              key={agent.name}
              kind="sub-agent"
              testId="agent"
              found={agent}
              onSetEnabled={onSetEnabled}
            >
              <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">
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
