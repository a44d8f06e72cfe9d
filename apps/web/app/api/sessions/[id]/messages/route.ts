import { MessagesQuerySchema, type MessagesResponse, SendMessageRequestSchema } from "@arbor/core";
import {
  badRequest,
  HttpError,
  handle,
  json,
  loadSession,
  notFound,
  readBody,
  validate,
} from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/**
 * The query as its schema reads it: `type` from every `type` parameter, each split at commas;
 * every other parameter as given, so the strict schema names an unknown one.
 */
function queryOf(params: URLSearchParams): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    query[name] =
      name === "type" ? params.getAll(name).flatMap((value) => value.split(",")) : params.get(name);
  }
  return query;
}

/** ?branch=ID (default: the active branch) &view=full|optimized (default full) &type=T[,T…]. */
export const GET = handle("GET /api/sessions/{id}/messages", async (request, context: Context) => {
  const { id } = await context.params;
  const query = validate(MessagesQuerySchema, queryOf(new URL(request.url).searchParams));
  const session = await loadSession(await getRuntime(), id);
  const view = query.view;
  const branchId = query.branch ?? session.activeBranchId;
  if (!session.branches.some((branch) => branch.id === branchId)) {
    throw new HttpError(notFound(`branch ${branchId} does not exist in session ${id}`));
  }
  const result = session.messages({
    branchId,
    view,
    ...(query.type !== undefined ? { types: query.type } : {}),
  });
  const body: MessagesResponse = {
    branch_id: branchId,
    view: result.view,
    messages: result.messages,
    optimizations: result.optimizations,
    queued: result.queued,
    ...(branchId === session.activeBranchId ? { context_usage: session.contextUsage() } : {}),
  };
  return json(body);
});

/**
 * Sends a message; the answer streams this operation's events. The operation is not tied to the
 * connection: a client that reloads mid-answer picks the rest up from /events with Last-Event-ID,
 * and stopping is POST /interrupt.
 */
export const POST = handle(
  "POST /api/sessions/{id}/messages",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const body = await readBody(request, SendMessageRequestSchema);
    if (body.session_id !== id) {
      throw new HttpError(
        badRequest([{ field: "session_id", message: "must be the session named in the URL" }]),
      );
    }
    // refused before anything is stored: an MCP resource or prompt the session's servers offer
    const problem = session.payloadProblem(body.payload);
    if (problem !== undefined) {
      throw new HttpError(
        badRequest([{ field: `payload.${problem.field}`, message: problem.message }]),
      );
    }
    const options = {
      by: actor,
      ...(body.client_metadata ? { clientMetadata: body.client_metadata } : {}),
      ...(body.delivery ? { delivery: body.delivery } : {}),
    };
    return operationResponse(arbor, session.sendMessage(body.payload, options), {
      signal: request.signal,
    });
  },
);
