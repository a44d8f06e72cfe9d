import { ApprovePlanRequestSchema } from "@arbor/core";
import { handle, loadSession, readBody } from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** "Approve plan and switch to Act": the mode change, the approval and the run, in this stream. */
export const POST = handle(
  "POST /api/sessions/{id}/plan/approve",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const body = await readBody(request, ApprovePlanRequestSchema);
    return operationResponse(arbor, session.approvePlan(body.message_id, { by: actor }), {
      signal: request.signal,
    });
  },
);
