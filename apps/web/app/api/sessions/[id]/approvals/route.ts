import { ApprovalsRequestSchema } from "@arbor/core";
import { handle, loadSession, readBody } from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/**
 * Decides pending tool calls; once none is pending the loop continues in this stream. Who may
 * decide (the session's `approvers`) is authorize()'s `session.approve`, checked by handle();
 * each decision is stored with its person (decided_by), and the run it continues records them
 * as its starter.
 */
export const POST = handle(
  "POST /api/sessions/{id}/approvals",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const body = await readBody(request, ApprovalsRequestSchema);
    return operationResponse(arbor, session.decideToolCalls(body.decisions, { by: actor }), {
      signal: request.signal,
    });
  },
);
