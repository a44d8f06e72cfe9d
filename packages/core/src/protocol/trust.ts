// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax of the config files described here
import { z } from "zod";
import { strictRequest } from "./strict.js";

// GET /api/workspace/trust, POST /api/workspace/trust and DELETE /api/workspace/trust: the
// definitions of the workspace's executable configuration (MCP servers of mcp_servers.json and
// .mcp.json, specs of .arbor/openapi.json, hooks of .claude/settings.json and .arbor/settings.json), what each would do, and whether a person trusted it.

export const DefinitionRunsSchema = z
  .object({
    command: z.string().optional().describe("the program a local server runs"),
    args: z
      .array(z.string())
      .optional()
      .describe("its arguments, as written (`${VAR}` unexpanded)"),
    cwd: z.string().optional().describe("its working directory, relative to the workspace"),
    env: z.array(z.string()).optional().describe("names of the variables it sets for the process"),
    variables: z
      .array(z.string())
      .optional()
      .describe("names of the server's environment variables it reads (`${VAR}`, `auth.env`)"),
    network: z.boolean().optional().describe("whether its process may use the network"),
    url: z.string().optional().describe("a remote MCP server's URL"),
    headers: z.array(z.string()).optional().describe("names of the headers sent to it"),
    spec: z.string().optional().describe("an OpenAPI spec: the file or URL it is read from"),
    fetches: z.array(z.string()).optional().describe("URLs fetched to read the spec"),
    base_url: z.string().optional().describe("where its calls go"),
    credential: z
      .object({
        env: z.string().describe("the variable holding the credential (never its value)"),
        type: z.string().describe("`bearer`, `basic` or `api_key`"),
        sent_to: z.string().optional().describe("the only host it is sent to"),
      })
      .optional(),
    hook: z
      .object({
        event: z.string().describe("the event it runs on: `PreToolUse`, `Stop`, …"),
        matcher: z
          .string()
          .optional()
          .describe("the tools (a regular expression) or the compaction trigger it runs for"),
        timeout_s: z.number().describe("seconds before its command is killed"),
      })
      .optional()
      .describe("a hook of .claude/settings.json or .arbor/settings.json (docs/hooks.md)"),
  })
  .describe("What a definition does once trusted: what starts, what is fetched, what goes where.");

export const TrustDefinitionViewSchema = z.object({
  kind: z.enum(["mcp_server", "openapi_spec", "hook"]),
  file: z.string().describe("the file, relative to the workspace"),
  name: z.string().describe("the definition's name in the file (server name, spec)"),
  hash: z.string().describe("sha256 of the definition as it is now: what POST trusts"),
  status: z
    .enum(["trusted", "untrusted", "changed"])
    .describe("`changed`: trusted once, then edited: it is inert again until trusted as it is now"),
  runs: DefinitionRunsSchema,
  trusted_by: z.string().optional().describe("who trusted it (absent: never, or trust_all)"),
  trusted_at: z.string().optional().describe("when (ISO-8601)"),
});
export type TrustDefinitionView = z.infer<typeof TrustDefinitionViewSchema>;

export const WorkspaceTrustResponseSchema = z
  .object({
    workspace: z.string().describe("the workspace's absolute root"),
    trust_all: z
      .boolean()
      .describe("ARBOR_TRUST_WORKSPACE_CONFIG=1: every definition is trusted without asking"),
    definitions: z.array(TrustDefinitionViewSchema),
  })
  .describe("Answer to GET /api/workspace/trust.");
export type WorkspaceTrustResponse = z.infer<typeof WorkspaceTrustResponseSchema>;

export const TrustDefinitionRequestSchema = strictRequest(
  z
    .object({
      file: z.string().min(1).max(4096).describe("the definition's file, as GET lists it"),
      name: z.string().min(1).max(4096).describe("the definition's name, as GET lists it"),
      hash: z
        .string()
        .regex(/^[0-9a-f]{64}$/, "expected the 64 hex digits GET lists")
        .describe(
          "the hash shown to the person who trusts: a definition changed since is answered 409",
        ),
    })
    .describe("Body of POST /api/workspace/trust: trusts one definition as it is now."),
);
export type TrustDefinitionRequest = z.infer<typeof TrustDefinitionRequestSchema>;

export const RevokeTrustRequestSchema = strictRequest(
  z
    .object({
      file: z.string().min(1).max(4096),
      name: z.string().min(1).max(4096),
    })
    .describe("Body of DELETE /api/workspace/trust: the definition becomes inert again."),
);
export type RevokeTrustRequest = z.infer<typeof RevokeTrustRequestSchema>;
