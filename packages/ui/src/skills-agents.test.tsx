import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AgentList, SkillList } from "./skills-agents.js";

const on = { enabled: true, disabled_by: null, disabled_at: null };
const deploy = {
  name: "deploy",
  description: "How to deploy",
  source: "arbor" as const,
  path: "/ws/.arbor/skills/deploy/SKILL.md",
};
const researcher = {
  name: "researcher",
  description: "Finds facts",
  source: "arbor" as const,
  path: "/ws/.arbor/agents/researcher.md",
  tools: null,
  model: null,
};
const off = {
  enabled: false,
  disabled_by: { id: "u-ana", name: "Ana" },
  disabled_at: "2026-11-28T08:00:00.000Z",
};

describe("switching skills and sub-agents (issue #27, decision 0057)", () => {
  it("those who may configure get a named switch per skill and per sub-agent", () => {
    const onSkill = vi.fn();
    const onAgent = vi.fn();
    render(
      <>
        <SkillList
          skills={{ skills: [{ ...deploy, ...on }], problems: [] }}
          onSetEnabled={onSkill}
        />
        <AgentList
          agents={{ agents: [{ ...researcher, ...off }], problems: [] }}
          onSetEnabled={onAgent}
        />
      </>,
    );
    const skillSwitch = screen.getByRole("switch", { name: "Use skill deploy" });
    expect((skillSwitch as HTMLInputElement).checked).toBe(true);
    fireEvent.click(skillSwitch);
    expect(onSkill).toHaveBeenCalledWith("deploy", false);
    const agentSwitch = screen.getByRole("switch", { name: "Use sub-agent researcher" });
    expect((agentSwitch as HTMLInputElement).checked).toBe(false);
    fireEvent.click(agentSwitch);
    expect(onAgent).toHaveBeenCalledWith("researcher", true);
    expect(screen.getByTestId("agent").textContent).toContain("Switched off by Ana");
  });

  it("everyone else sees the state and no switch", () => {
    render(
      <>
        <SkillList skills={{ skills: [{ ...deploy, ...off }], problems: [] }} />
        <AgentList agents={{ agents: [{ ...researcher, ...on }], problems: [] }} />
      </>,
    );
    expect(screen.queryAllByRole("switch")).toEqual([]);
    expect(screen.getByTestId("skill-off").textContent).toBe("Off");
    expect(screen.getByTestId("skill").textContent).toContain("Switched off by Ana");
    expect(screen.queryByTestId("agent-off")).toBeNull();
  });
});

describe("SkillList / AgentList", () => {
  it("shows skills with their source and malformed files with the reason", () => {
    render(
      <SkillList
        skills={{
          skills: [
            {
              name: "deploy",
              description: "How to deploy",
              source: "arbor",
              path: "/ws/.arbor/skills/deploy/SKILL.md",
              ...on,
            },
          ],
          problems: [
            {
              path: "/ws/.arbor/skills/bad/SKILL.md",
              source: "arbor",
              reason: "`name` is missing",
            },
          ],
        }}
      />,
    );
    expect(screen.getByTestId("skill").textContent).toContain("deploy");
    expect(screen.getByTestId("skill").textContent).toContain("How to deploy");
    expect(screen.getByTestId("skill-problem").textContent).toContain("`name` is missing");
  });

  it("shows sub-agents with their tools and model, and an empty hint", () => {
    const { rerender } = render(
      <AgentList
        agents={{
          agents: [
            {
              name: "researcher",
              description: "Finds facts",
              source: "claude",
              path: "/ws/.claude/agents/r.md",
              tools: ["read_file", "search"],
              model: null,
              ...on,
            },
          ],
          problems: [],
        }}
      />,
    );
    expect(screen.getByTestId("agent").textContent).toContain("tools: read_file, search");
    expect(screen.getByTestId("agent").textContent).toContain("model: the session's");
    rerender(<AgentList agents={{ agents: [], problems: [] }} />);
    expect(screen.getByTestId("agents-empty")).toBeTruthy();
  });

  it("shows an agent whose name a tool keeps among the files not used, with the reason", () => {
    const reason =
      'the name "bash" is taken by the built-in tool bash, which keeps it: this sub-agent is not offered. Rename it (`name` in the front matter).';
    render(
      <AgentList
        agents={{
          agents: [],
          problems: [{ path: "/ws/.arbor/agents/bash.md", source: "arbor", reason }],
        }}
      />,
    );
    const list = screen.getByRole("list", { name: "Files not used" });
    expect(list.textContent).toContain("/ws/.arbor/agents/bash.md");
    expect(screen.getByTestId("agent-problem").textContent).toContain(reason);
  });
});
