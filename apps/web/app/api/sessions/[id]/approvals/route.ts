import { ApprovalsRequestSchema } from "@arbor/core";
import { handle, loadSession, readBody } from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** Decides pending tool calls; once none is pending the loop continues in this stream. */
export const POST = handle(
  "POST /api/sessions/{id}/approvals",
  async (request, context: Context) => {
    const { id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const body = await readBody(request, ApprovalsRequestSchema);
    return operationResponse(arbor, session.decideToolCalls(body.decisions), {
      signal: request.signal,
    });
  },
);
