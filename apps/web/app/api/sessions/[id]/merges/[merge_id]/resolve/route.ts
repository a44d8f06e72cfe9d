import { ResolveMergeRequestSchema, toMergeDecision } from "@arbor/core";
import {
  HttpError,
  handle,
  json,
  loadSession,
  notFound,
  readBody,
  resultOf,
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
    // the body first: a field it should not have is named whether or not the merge is pending
    const body = await readBody(request, ResolveMergeRequestSchema);
    if (!session.pendingMerges.some((m) => m.merge_id === merge_id)) {
      throw new HttpError(notFound(`merge ${merge_id} is not pending in session ${id}`));
    }
    const decision = toMergeDecision(body);
    const report = await resultOf(arbor, session.resolveMerge(merge_id, decision), body);
    return json(mergeResponse(report));
  },
);
