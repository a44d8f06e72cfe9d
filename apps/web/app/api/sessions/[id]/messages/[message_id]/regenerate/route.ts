import { handle, loadSession, readNoBody } from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; message_id: string }> };

/** Regenerate: a new branch at the user's message that this one answers, and a new answer. */
export const POST = handle(
  "POST /api/sessions/{id}/messages/{message_id}/regenerate",
  async (request, context: Context, actor) => {
    const { id, message_id } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    return operationResponse(
      arbor,
      session.regenerate(message_id, {
        by: actor,
      }),
      { signal: request.signal },
    );
  },
);
