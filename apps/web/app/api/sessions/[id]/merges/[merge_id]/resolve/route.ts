import { ResolveMergeRequestSchema, toMergeDecision } from "@arbor/core";
import {
  HttpError,
  handle,
  internalError,
  json,
  loadSession,
  notFound,
  readBody,
  settle,
} from "@/lib/server/http";
import { mergeResponse } from "@/lib/server/results";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; merge_id: string }> };

/** {resolutions} for a rebase's conflicts, {proceed: true} past cherry-pick warnings, or {cancel: true}. */
export const POST = handle(
  "POST /api/sessions/{id}/merges/{merge_id}/resolve",
  async (request, context: Context) => {
    const { id, merge_id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    if (!session.pendingMerges.some((m) => m.merge_id === merge_id)) {
      throw new HttpError(notFound(`merge ${merge_id} is not pending in session ${id}`));
    }
    const body = await readBody(request, ResolveMergeRequestSchema);
    const events = await settle(arbor, session.resolveMerge(merge_id, toMergeDecision(body)), body);
    const outcome = mergeResponse(events);
    if (outcome === undefined) throw new HttpError(internalError());
    return json(outcome);
  },
);
