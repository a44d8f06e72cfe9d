import { handle, loadSession, readNoBody } from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** Continues a paused or recoverably failed run; streams its events. */
export const POST = handle(
  "POST /api/sessions/{id}/resume",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    return operationResponse(arbor, session.resume({ by: actor }), { signal: request.signal });
  },
);
