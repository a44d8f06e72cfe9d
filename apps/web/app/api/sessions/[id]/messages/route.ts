import { type MessagesResponse, SendMessageRequestSchema } from "@arbor/core";
import {
  badRequest,
  HttpError,
  handle,
  json,
  loadSession,
  notFound,
  readBody,
} from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

const VIEWS = ["full", "optimized"] as const;

/** ?branch=ID (default: the active branch) &view=full|optimized (default full). */
export const GET = handle("GET /api/sessions/{id}/messages", async (request, context: Context) => {
  const { id } = await context.params;
  const session = await loadSession(await getRuntime(), id);
  const query = new URL(request.url).searchParams;
  const viewParam = query.get("view") ?? "full";
  const view = VIEWS.find((v) => v === viewParam);
  if (view === undefined) {
    throw new HttpError(
      badRequest([{ field: "view", message: `expected one of: ${VIEWS.join(", ")}` }]),
    );
  }
  const branchId = query.get("branch") || session.activeBranchId;
  if (!session.branches.some((branch) => branch.id === branchId)) {
    throw new HttpError(notFound(`branch ${branchId} does not exist in session ${id}`));
  }
  const result = session.messages({ branchId, view });
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
    if (body.payload.type === "mcp_resource") {
      // refused before anything is stored: the server must be connected and offer the URI
      const problem = arbor.mcp.resourceProblem(
        body.payload.server_name,
        body.payload.resource_uri,
      );
      if (problem !== undefined) {
        throw new HttpError(
          badRequest([{ field: `payload.${problem.field}`, message: problem.message }]),
        );
      }
    }
    if (body.payload.type === "mcp_prompt") {
      // refused before anything is stored: a connected server, a prompt it lists, its arguments
      const problem = arbor.mcp.promptProblem(
        body.payload.server_name,
        body.payload.prompt_name,
        body.payload.arguments ?? {},
      );
      if (problem !== undefined) {
        throw new HttpError(
          badRequest([{ field: `payload.${problem.field}`, message: problem.message }]),
        );
      }
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
