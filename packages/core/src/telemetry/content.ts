import type { SecretSource } from "../tools/redacting-tool.js";
import { redact, redactValue, secretsFromEnv } from "../tools/secrets.js";

// Message content on spans (prompts, completions, tool arguments and results). Off unless
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (the variable the GenAI instrumentations
// share); when on, every string is redacted with the tool layer's redaction (tools/secrets.ts)
// before it becomes an attribute, so a secret a tool output would never carry never leaves in a
// span either.

export const CAPTURE_CONTENT_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

let secretSource: SecretSource | undefined;
let envSecrets: readonly string[] | undefined;

/**
 * The secrets content attributes are redacted of: the same source the tools get (the web app's
 * runtime passes its own: the environment's secrets, OpenAPI credentials and keys kept in
 * Settings). Until set, the process environment's secrets (secretsFromEnv).
 */
export function setTelemetrySecrets(source: SecretSource | undefined): void {
  secretSource = source;
}

function secrets(): readonly string[] {
  if (secretSource !== undefined) {
    return typeof secretSource === "function" ? secretSource() : secretSource;
  }
  envSecrets ??= secretsFromEnv(process.env);
  return envSecrets;
}

/** Whether content attributes are recorded: read at each span, so a test may switch it. */
export function capturingContent(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[CAPTURE_CONTENT_VARIABLE]?.trim().toLowerCase() === "true";
}

/** `value` as the JSON string a content attribute holds, every secret redacted. */
export function contentAttribute(value: unknown): string {
  const list = secrets();
  // each string redacted before JSON escapes it (a secret with a quote would no longer match),
  // then the text once more
  const json = typeof value === "string" ? value : (JSON.stringify(redactValue(value, list)) ?? "");
  return redact(json, list);
}
