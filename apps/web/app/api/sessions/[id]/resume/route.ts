import { handle, loadSession } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";
import { sseResponse } from "@/lib/server/sse";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** Continues a paused or recoverably failed run; streams its events. */
export const POST = handle("POST /api/sessions/{id}/resume", async (request, context: Context) => {
  const { id } = await context.params;
  const session = await loadSession(await getRuntime(), id);
  return sseResponse(session.resume(), { signal: request.signal });
});
