import { ParallelMessageRequestSchema } from "@arbor/core";
import { badRequest, HttpError, handle, loadSession, readBody } from "@/lib/server/http";
import { operationResponse } from "@/lib/server/operation-sse";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/**
 * Ask N ways: one message, N candidates at once, one chosen (docs/parallel.md). The stream holds
 * every candidate's events tagged with its index, then the verdict; the operation is not tied to
 * the connection (reconnect through /events, stop with /interrupt).
 */
export const POST = handle(
  "POST /api/sessions/{id}/messages/parallel",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const body = await readBody(request, ParallelMessageRequestSchema);
    if (body.session_id !== id) {
      throw new HttpError(
        badRequest([{ field: "session_id", message: "must be the session named in the URL" }]),
      );
    }
    const problem = session.parallelProblem(body);
    if (problem !== undefined) throw new HttpError(badRequest([problem]));
    return operationResponse(arbor, session.askParallel(body, { by: actor }), {
      signal: request.signal,
    });
  },
);
