import { z } from "zod";

// GET /api/settings: how this server runs tools, for the UI's session settings and for clients
// that want to know before they approve a command.

export const SandboxSettingsSchema = z
  .object({
    mode: z
      .enum(["bubblewrap", "none", "unavailable"])
      .describe(
        "`bubblewrap`: tool processes (bash, stdio MCP servers) run with `/` read-only, the workspace writable, their own /tmp and PID namespace, the data dir hidden; `none`: they run as the server's user (see `refused`); `unavailable`: ARBOR_SANDBOX=bubblewrap and bubblewrap does not work, so they are refused",
      ),
    network: z
      .boolean()
      .describe(
        "whether bash's commands can reach the network (ARBOR_SANDBOX_NETWORK=1; stdio MCP servers have it unless their entry says `network: false`)",
      ),
    reason: z
      .string()
      .optional()
      .describe("why there is no sandbox (`ARBOR_SANDBOX=off`, bwrap missing, …)"),
    refused: z
      .enum(["none", "unattended", "all"])
      .describe(
        "which process-starting tool runs are refused for want of a sandbox: `none`; `unattended`, those no person approves (an auto-approve policy, a tool on the session's white list, a stdio MCP server starting from its config); `all`, every one (ARBOR_SANDBOX=bubblewrap without bubblewrap, or no sandbox while serving beyond loopback)",
      ),
    fix: z
      .string()
      .optional()
      .describe(
        "how to get a sandbox (or to opt out of one); present whenever there is no sandbox",
      ),
  })
  .describe("The sandbox of tool processes (ARBOR_SANDBOX, ARBOR_SANDBOX_NETWORK).");
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
