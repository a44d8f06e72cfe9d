import { z } from "zod";
import { type AgentTool, defineTool } from "../tools/tool.js";
import type { CodebaseIndex } from "./codebase-index.js";
import { DEFAULT_CODEBASE_OUTPUT_CHARS } from "./output.js";
import { overviewText, type ProjectOverview, projectOverview } from "./overview.js";

// get_project_overview: the workspace's shape for a model reading it for the first time.

const parameters = z.object({});

export function createProjectOverviewTool(options: {
  index: CodebaseIndex;
  maxOutputChars?: number;
}): AgentTool<typeof parameters, ProjectOverview> {
  return defineTool<typeof parameters, ProjectOverview>({
    name: "get_project_overview",
    label: "Project overview",
    category: "read",
    description:
      "Summarise the workspace for a first look: directory structure (summarised), entry points, key dependencies " +
      "(package.json, pyproject.toml, requirements.txt, go.mod, Cargo.toml, pom.xml, …), languages with their share, size in files and lines.",
    parameters,
    async execute() {
      const symbols = await options.index.ready();
      const overview = await projectOverview(options.index.root, [...symbols.allFiles()]);
      const budget = options.maxOutputChars ?? DEFAULT_CODEBASE_OUTPUT_CHARS;
      let text = overviewText(overview);
      if (text.length > budget) {
        const cut = text.lastIndexOf("\n", budget);
        const left = text.slice(cut).split("\n").length - 1;
        text = `${text.slice(0, cut)}\n… ${left} more line${left === 1 ? "" : "s"} not shown (output limit).`;
      }
      return { content: [{ type: "text", text }], details: overview };
    },
  });
}
