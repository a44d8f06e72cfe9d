import { MergeRequestSchema } from "@arbor/core";
import { handle, json, loadSession, readBody, resultOf } from "@/lib/server/http";
import { mergeResponse } from "@/lib/server/results";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** Merges a branch into another: merged, or conflicts / needs_confirmation to resolve. */
export const POST = handle("POST /api/sessions/{id}/merges", async (request, context: Context) => {
  const { id } = await context.params;
  const arbor = await getRuntime();
  const session = await loadSession(arbor, id);
  const body = await readBody(request, MergeRequestSchema);
  return json(mergeResponse(await resultOf(arbor, session.merge(body), body)));
});
