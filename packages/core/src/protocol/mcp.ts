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
        "the file it is defined in: relative to the workspace, or the absolute path of ARBOR_MCP_CONFIG",
      ),
    error: z
      .string()
      .optional()
      .describe(
        "why it failed (an invalid entry names its field), or why it is reconnecting after it died",
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
