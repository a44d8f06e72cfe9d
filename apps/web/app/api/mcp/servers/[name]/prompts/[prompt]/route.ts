import { isMcpLookupError, McpPromptRequestSchema, type McpPromptResponse } from "@arbor/core";
import { badRequest, HttpError, handle, json, notFound, readBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ name: string; prompt: string }> };

/** The prompt's messages with the given arguments (the composer's `/` commands). */
export const POST = handle(
  "POST /api/mcp/servers/{name}/prompts/{prompt}",
  async (request, context: Context) => {
    const { name, prompt } = await context.params;
    const body = await readBody(request, McpPromptRequestSchema);
    const { mcp } = await getRuntime();
    try {
      const answer: McpPromptResponse = await mcp.promptMessages(
        name,
        prompt,
        body.arguments ?? {},
      );
      return json(answer);
    } catch (error) {
      // by name, not instanceof: the runtime may hold another bundle's copy of the class
      if (!isMcpLookupError(error)) throw error;
      if (error.field === "server_name" || error.field === "prompt_name") {
        throw new HttpError(notFound(error.message));
      }
      throw new HttpError(badRequest([{ field: error.field, message: error.message }]));
    }
  },
);
