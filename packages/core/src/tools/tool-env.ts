// The environment of every tool process (bash, search's rg/grep, anything spawned for a tool).
// Built from an allow-list, never from the server's whole environment: the server holds provider
// keys, the install token and the database URL, and a command could print any of them.

type Env = Readonly<Record<string, string | undefined>>;

/** Passed through when set. */
export const TOOL_ENV_ALLOWED: readonly string[] = Object.freeze([
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TZ",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR",
]);

/**
 * Never passed, even when named in ARBOR_TOOL_ENV: Arbor's own credentials and the providers'
 * keys (one could otherwise leak the key the server talks to its model with).
 */
export const TOOL_ENV_NEVER: readonly string[] = Object.freeze([
  "ARBOR_TOKEN",
  "ARBOR_ADMIN_TOKEN",
  "DATABASE_URL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "GOOGLE_VERTEX_API_KEY",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AZURE_API_KEY",
  "AZURE_OPENAI_API_KEY",
  "AWS_BEARER_TOKEN_BEDROCK",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
]);

/**
 * Never passed either, whatever the name after the prefix: the OpenTelemetry export's settings,
 * whose OTEL_EXPORTER_OTLP_*HEADERS carry the observability backend's credentials (issue #28). A
 * tool process that ran an SDK of its own would also export into Arbor's backend with them.
 */
export const TOOL_ENV_NEVER_PREFIXES: readonly string[] = Object.freeze(["OTEL_"]);

/** True for a name no tool process may get: TOOL_ENV_NEVER, or a TOOL_ENV_NEVER_PREFIXES name. */
export function isNeverToolEnv(name: string): boolean {
  return TOOL_ENV_NEVER.includes(name) || TOOL_ENV_NEVER_PREFIXES.some((p) => name.startsWith(p));
}

export interface ToolEnvOptions {
  /** the server's environment (`ARBOR_TOOL_ENV` is read from it) */
  env: Env;
  /** the workspace root, given to tools as WORKSPACE_DIR */
  workspaceRoot: string;
}

/** The names `ARBOR_TOOL_ENV` adds (comma-separated), forbidden names removed. */
export function extraToolEnvNames(env: Env): string[] {
  const listed = (env.ARBOR_TOOL_ENV ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "" && !isNeverToolEnv(name));
  return [...new Set(listed)];
}

/**
 * The scrubbed environment: the allow-list (plus every LC_* variable), WORKSPACE_DIR, and the
 * names listed in ARBOR_TOOL_ENV — never a name of TOOL_ENV_NEVER or an OTEL_* name.
 */
export function toolEnvironment(options: ToolEnvOptions): Record<string, string> {
  const { env } = options;
  const out: Record<string, string> = {};
  const names = [
    ...TOOL_ENV_ALLOWED,
    ...Object.keys(env).filter((name) => name.startsWith("LC_")),
    ...extraToolEnvNames(env),
  ];
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  out.WORKSPACE_DIR = options.workspaceRoot;
  return out;
}

/** The names a tool process gets, for the settings view (sorted; values are never shown). */
export function toolEnvNames(options: ToolEnvOptions): string[] {
  return Object.keys(toolEnvironment(options)).sort();
}

/**
 * `env` without the variables `names`: for variables that hold credentials of Arbor's own
 * integrations (the OpenAPI specs' `auth.env`), whatever their names. Give the result to
 * everything that starts tool processes, so not even ARBOR_TOOL_ENV can pass them on.
 */
export function withoutVariables(
  env: Env,
  names: Iterable<string>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env };
  for (const name of names) delete out[name];
  return out;
}
