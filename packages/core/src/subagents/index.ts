// Sub-agents defined in agent files (.arbor/agents, .claude/agents) and their tools.
export * from "./agent-files.js";
export * from "./agent-tools.js";
export * from "./enabled-agents.js";
export * from "./sub-agent-tool.js";
export * from "./views.js";
