import { type Branch, UpdateBranchRequestSchema } from "@arbor/core";
import {
  HttpError,
  handle,
  json,
  loadSession,
  noContent,
  notFound,
  readBody,
  readNoBody,
  resultOf,
} from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; branch_id: string }> };

/**
 * Renames a branch or sets / clears its own system prompt and pipeline; answers the branch.
 * The other branches are left as they are.
 */
export const PATCH = handle(
  "PATCH /api/sessions/{id}/branches/{branch_id}",
  async (request, context: Context) => {
    const { id, branch_id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    if (!session.branches.some((b) => b.id === branch_id)) {
      throw new HttpError(notFound(`branch ${branch_id} does not exist in session ${id}`));
    }
    const body = await readBody(request, UpdateBranchRequestSchema);
    const branch: Branch = await resultOf(arbor, session.updateBranch(branch_id, body), body);
    return json(branch);
  },
);

/**
 * Deletes a branch (not the active one: switch first); its messages stay in the pool. A branch
 * that was merged into others can be deleted: their messages and merge records stay.
 */
export const DELETE = handle(
  "DELETE /api/sessions/{id}/branches/{branch_id}",
  async (request, context: Context) => {
    const { id, branch_id } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    if (!session.branches.some((b) => b.id === branch_id)) {
      throw new HttpError(notFound(`branch ${branch_id} does not exist in session ${id}`));
    }
    await resultOf(arbor, session.deleteBranch(branch_id));
    return noContent();
  },
);
