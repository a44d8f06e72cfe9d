import { EditMessageRequestSchema } from "@arbor/core";
import { handle, loadSession, readBody } from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; message_id: string }> };

/** Edit & resend: a new branch with the edited message, then the model's answer, in this stream. */
export const POST = handle(
  "POST /api/sessions/{id}/messages/{message_id}/edit",
  async (request, context: Context, actor) => {
    const { id, message_id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const body = await readBody(request, EditMessageRequestSchema);
    return operationResponse(arbor, session.editAndResend(message_id, body.text, { by: actor }), {
      signal: request.signal,
    });
  },
);
