import { ApprovalsRequestSchema, mayApprove, type SessionRelation } from "@arbor/core";
import { forbidden, HttpError, handle, loadSession, readBody } from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/**
 * Decides pending tool calls; once none is pending the loop continues in this stream. Only who
 * the session's `approvers` setting allows decides (403 otherwise); each decision is stored with
 * its person (decided_by), and the run it continues records them as its starter.
 */
export const POST = handle(
  "POST /api/sessions/{id}/approvals",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    // TODO(lead): the relation must come from authorize() (the session's owner, its shares, the
    // actor's role). Until session ownership is wired, every caller but a viewer counts as the
    // session's owner (a viewer never decides, whatever the session says).
    const relation: SessionRelation = actor.role === "viewer" ? "viewer" : "owner";
    const approvers = session.config.approvers;
    if (!mayApprove(relation, approvers)) {
      throw new HttpError(
        forbidden(
          approvers === "owner"
            ? "only the session's owner may approve or deny its tool calls"
            : "only the session's owner and collaborators may approve or deny its tool calls",
        ),
      );
    }
    const body = await readBody(request, ApprovalsRequestSchema);
    return operationResponse(arbor, session.decideToolCalls(body.decisions, { by: actor }), {
      signal: request.signal,
    });
  },
);
