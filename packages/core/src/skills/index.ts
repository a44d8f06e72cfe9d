// Skills (Anthropic's Agent Skills format): SKILL.md folders listed in the system prompt and
// loaded on demand through the `skill` tool; the YAML front matter parser agent files share.
export * from "./front-matter.js";
export * from "./skill-set.js";
export * from "./skill-tool.js";
export * from "./switches.js";
