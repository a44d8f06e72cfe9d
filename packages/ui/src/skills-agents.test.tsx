import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { AgentList, SkillList } from "./skills-agents.js";

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
