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
});
