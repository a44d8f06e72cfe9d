import { ApprovalsRequestSchema } from "@arbor/core";
import { auditedDecisions } from "@/lib/server/audit-approvals";
import { handle, loadSession, readBody } from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/**
 * Decides pending tool calls; once none is pending the loop continues in this stream. Who may
 * decide (the session's `approvers`) is authorize()'s `session.approve`, checked by handle();
 * each decision is stored with its person (decided_by) and is an audit row (tool_approved /
 * tool_denied), and the run it continues records them as its starter.
 */
export const POST = handle(
  "POST /api/sessions/{id}/approvals",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const body = await readBody(request, ApprovalsRequestSchema);
    const audited = auditedDecisions(arbor, actor, session, body.decisions, () =>
      session.decideToolCalls(body.decisions, { by: actor }),
    );
    return operationResponse(arbor, audited, {
      signal: request.signal,
    });
  },
);
