export * from "./builtin/index.js";
export { groupAlive } from "./proc-stat.js";
export { type SecretSource, withRedactedOutput } from "./redacting-tool.js";
export {
  type JsonSchemaToolSpec,
  jsonSchemaTool,
  ToolRegistry,
  type ToolSource,
  toToolRegistry,
} from "./registry.js";
export {
  ATTENDED_LOOPBACK,
  bubblewrapArgs,
  type DetectSandboxOptions,
  describeSandbox,
  detectSandbox,
  probeBubblewrap,
  SANDBOX_FIX,
  type Sandbox,
  type SandboxExposure,
  type SandboxSettings,
  type SandboxVerdict,
  sandboxGate,
  sandboxSettings,
} from "./sandbox.js";
export { REDACTED, redact, redactValue, SECRET_NAME, secretsFromEnv } from "./secrets.js";
export * from "./tool.js";
export {
  extraToolEnvNames,
  isNeverToolEnv,
  TOOL_ENV_ALLOWED,
  TOOL_ENV_NEVER,
  TOOL_ENV_NEVER_PREFIXES,
  type ToolEnvOptions,
  toolEnvironment,
  toolEnvNames,
  withoutVariables,
} from "./tool-env.js";
export {
  DEFAULT_KILL_GRACE_MS,
  defaultToolProcesses,
  endGroupsOnShutdown,
  type GroupSpawnOptions,
  type ToolProcess,
  ToolProcesses,
  type ToolProcessesOptions,
} from "./tool-processes.js";
export {
  MAX_PATH_CHARS,
  type RefusedDir,
  refusedDirOf,
  refusedDirs,
  refuseHardLinks,
  refuseInWorkspaces,
  Workspace,
  type WorkspacePath,
} from "./workspace.js";
