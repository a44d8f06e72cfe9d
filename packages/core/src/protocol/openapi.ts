import { z } from "zod";

// GET /api/openapi/specs: the OpenAPI specs of <workspace>/.arbor/openapi.json, their state and
// the tools each gives (docs/openapi.md).

export const OpenApiSpecViewSchema = z
  .object({
    index: z.number().int().describe("the entry's place in the file, from 0"),
    spec: z.string().describe("the `spec` as written: a path (relative to the workspace) or a URL"),
    title: z.string().optional().describe("the spec's `info.title`"),
    version: z.string().optional().describe("the spec's `info.version`"),
    status: z
      .enum(["loading", "loaded", "failed", "untrusted"])
      .describe(
        "`loading`: being read and validated; `failed`: it cannot be read, is not a valid OpenAPI 3.x document, or its entry is invalid (see `error`); `untrusted`: no person has trusted the entry and its spec file as they are now, so it is not read (GET /api/workspace/trust)",
      ),
    error: z
      .string()
      .optional()
      .describe("why it failed; an invalid entry names its field, e.g. `[1].auth.env: …`"),
    warnings: z
      .array(z.string())
      .describe("operations left out (no operationId, a body that is not JSON) and parts not sent"),
    base_url: z
      .string()
      .optional()
      .describe("where the calls go: `base_url`, else the spec's first server URL"),
    name_prefix: z.string().optional(),
    auth: z
      .object({
        type: z.enum(["bearer", "api_key", "basic"]),
        env: z.string().describe("the environment variable holding the credential"),
        set: z.boolean().describe("whether that variable is set (its value is never shown)"),
      })
      .optional(),
    tools: z
      .array(
        z.object({
          name: z.string().describe("the tool's name as the model sees it"),
          method: z.string(),
          path: z.string(),
          description: z.string(),
        }),
      )
      .describe("one tool per included operation (empty unless loaded)"),
  })
  .describe("One entry of .arbor/openapi.json.");
export type OpenApiSpecView = z.infer<typeof OpenApiSpecViewSchema>;

export const OpenApiSpecsResponseSchema = z
  .object({
    specs: z.array(OpenApiSpecViewSchema).describe("every entry of the file, in its order"),
    config_errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .describe("present when the file itself cannot be used (not JSON, not an array)"),
  })
  .describe("Answer to GET /api/openapi/specs.");
export type OpenApiSpecsResponse = z.infer<typeof OpenApiSpecsResponseSchema>;
