// Claude Code's hooks of a workspace's settings files, run in Arbor's sessions (docs/hooks.md).
export * from "./command-hooks.js";
export * from "./hook-output.js";
export * from "./run-hook.js";
export * from "./settings.js";
