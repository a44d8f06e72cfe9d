import { z } from "zod";

// GET /api/settings: how this server runs tools, for the UI's session settings and for clients
// that want to know before they approve a command.

export const SandboxSettingsSchema = z
  .object({
    mode: z
      .enum(["bubblewrap", "none"])
      .describe(
        "`bubblewrap`: bash runs with `/` read-only, the workspace writable, its own /tmp and PID namespace, the data dir hidden; `none`: bash runs as the server's user",
      ),
    network: z.boolean().describe("whether commands can reach the network"),
    reason: z
      .string()
      .optional()
      .describe("why there is no sandbox (`ARBOR_SANDBOX=off`, bwrap missing, …)"),
  })
  .describe("The bash tool's sandbox (ARBOR_SANDBOX, ARBOR_SANDBOX_NETWORK).");
export type SandboxSettingsView = z.infer<typeof SandboxSettingsSchema>;

export const SettingsResponseSchema = z
  .object({
    sandbox: SandboxSettingsSchema,
    tool_env: z
      .array(z.string())
      .describe(
        "names of the environment variables tool processes get (the allow-list, WORKSPACE_DIR and ARBOR_TOOL_ENV's names); values are never shown",
      ),
    default_system_prompt: z
      .string()
      .describe(
        "the base system prompt of a session without its own `system_prompt` (a branch's own prompt replaces either)",
      ),
    default_pipeline: z
      .array(z.string())
      .describe("the processors of a branch without its own pipeline, in order"),
  })
  .describe("Answer to GET /api/settings.");
export type SettingsResponse = z.infer<typeof SettingsResponseSchema>;
