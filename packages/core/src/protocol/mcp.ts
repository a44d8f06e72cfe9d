import { z } from "zod";
import { strictRequest } from "./strict.js";

// GET /api/mcp/servers and POST /api/mcp/servers/{name}/reconnect: the MCP servers of
// mcp_servers.json, their state and what each offers.

export const McpServerViewSchema = z
  .object({
    name: z.string().describe("the server's name in mcp_servers.json"),
    transport: z
      .enum(["stdio", "http", "sse"])
      .describe("`stdio`: a local process; `http`: Streamable HTTP; `sse`: the older HTTP+SSE"),
    status: z
      .enum(["connecting", "connected", "failed", "disabled", "untrusted"])
      .describe(
        '`failed`: did not start or initialize, or its entry is invalid (see `error`); `disabled`: `"disabled": true` in the file; `untrusted`: defined in a workspace file (mcp_servers.json, .mcp.json) that no person has trusted as it is now: it is not started (GET /api/workspace/trust)',
      ),
    file: z
      .string()
      .optional()
      .describe(
        "the file it is defined in: relative to the workspace, or the absolute path of ARBOR_MCP_CONFIG; `settings (database)` for a server added in the settings",
      ),
    error: z
      .string()
      .optional()
      .describe(
        "why it failed (an invalid entry names its field), or why it is reconnecting after it died",
      ),
    managed: z
      .boolean()
      .optional()
      .describe(
        "true: added in the settings (kept in the database, so every instance offers it), so it can be turned on or off and removed there (PATCH / DELETE /api/mcp/servers/{name})",
      ),
    added_by: z
      .object({ id: z.string(), name: z.string() })
      .optional()
      .describe(
        "who added it in the settings (a `managed` server); absent for a file's server and for one brought over from an older version's data directory",
      ),
    tools: z
      .array(
        z.object({
          name: z.string().describe("the tool's name on the server"),
          model_name: z
            .string()
            .describe("the name the model sees: `mcp__<server>__<tool>`, shortened when needed"),
          description: z.string(),
        }),
      )
      .describe("its tools (empty unless connected)"),
    resources: z.array(
      z.object({
        uri: z.string(),
        name: z.string(),
        mime_type: z.string().optional(),
      }),
    ),
    resource_templates: z.array(
      z.object({
        uri_template: z.string(),
        name: z.string(),
        mime_type: z.string().optional(),
      }),
    ),
    prompts: z.array(
      z.object({
        name: z.string(),
        description: z.string().optional(),
        arguments: z.array(
          z.object({
            name: z.string(),
            description: z.string().optional(),
            required: z.boolean(),
          }),
        ),
      }),
    ),
  })
  .describe("One configured MCP server.");
export type McpServerView = z.infer<typeof McpServerViewSchema>;

export const McpServersResponseSchema = z
  .object({
    servers: z.array(McpServerViewSchema).describe("every configured server, by name"),
    config_errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .describe(
        "present when the config file itself cannot be used (not JSON, no `mcpServers`): the servers keep their last good configuration",
      ),
  })
  .describe("Answer to GET /api/mcp/servers.");
export type McpServersResponse = z.infer<typeof McpServersResponseSchema>;

export const McpPromptRequestSchema = strictRequest(
  z
    .object({
      arguments: z
        .record(z.string(), z.string())
        .optional()
        .describe(
          "the prompt's arguments by name (GET /api/mcp/servers lists them); {} when absent",
        ),
    })
    .describe("Body of POST /api/mcp/servers/{name}/prompts/{prompt}."),
);
export type McpPromptRequest = z.infer<typeof McpPromptRequestSchema>;

export const McpPromptResponseSchema = z
  .object({
    description: z.string().optional(),
    messages: z
      .array(
        z.object({
          role: z.enum(["user", "assistant"]),
          text: z
            .string()
            .describe(
              "the message's text; an embedded resource is given as its text, other content is named",
            ),
        }),
      )
      .describe("the prompt's messages, in order"),
  })
  .describe("Answer to POST /api/mcp/servers/{name}/prompts/{prompt}.");
export type McpPromptResponse = z.infer<typeof McpPromptResponseSchema>;

/** A server's name as the settings take it: it becomes part of its tools' names (mcp__name__tool). */
const ServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "1–64 letters, digits, `_` or `-`")
  .describe("the server's name: 1–64 letters, digits, `_` or `-`");

export const AddMcpServerRequestSchema = strictRequest(
  z
    .object({
      name: ServerNameSchema,
      command: z
        .string()
        .min(1)
        .optional()
        .describe("a local (stdio) server: the program to run, in the sandbox as bash's commands"),
      args: z.array(z.string()).optional().describe("the program's arguments"),
      env: z
        .record(z.string(), z.string())
        .optional()
        .describe(
          "variables for the process; a variable reference takes the server's environment, never one of Arbor's secrets",
        ),
      url: z
        .string()
        .min(1)
        .optional()
        .describe("a remote server: its Streamable HTTP (or HTTP+SSE) endpoint, http or https"),
      headers: z.record(z.string(), z.string()).optional().describe("headers sent to `url`"),
    })
    .superRefine((body, ctx) => {
      if ((body.command === undefined) === (body.url === undefined)) {
        ctx.addIssue({
          code: "custom",
          path: [body.command === undefined ? "command" : "url"],
          message: "give either command (a local server) or url (a remote one)",
        });
      }
      if (body.command === undefined && (body.args !== undefined || body.env !== undefined)) {
        ctx.addIssue({
          code: "custom",
          path: [body.args !== undefined ? "args" : "env"],
          message: "args and env are for a local server (command)",
        });
      }
      if (body.url === undefined && body.headers !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["headers"],
          message: "headers are for a remote server (url)",
        });
      }
    })
    .describe(
      "Body of POST /api/mcp/servers: a server for the app's own config (kept in the database), trusted by the admin who adds it (audit log `mcp_server_added`). It starts at once here, and on the other instances of the database within seconds.",
    ),
);
export type AddMcpServerRequest = z.infer<typeof AddMcpServerRequestSchema>;

export const UpdateMcpServerRequestSchema = strictRequest(
  z
    .object({
      enabled: z
        .boolean()
        .describe("false: the server stops and its tools go (it stays listed); true: it starts"),
    })
    .describe(
      "Body of PATCH /api/mcp/servers/{name}, for a server added in the settings (`managed`).",
    ),
);
export type UpdateMcpServerRequest = z.infer<typeof UpdateMcpServerRequestSchema>;
