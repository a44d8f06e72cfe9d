import { HttpError, handle, loadSession, noContent, notFound, resultOf } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; branch_id: string }> };

/** Deletes a branch (not the active one, not the first); its messages stay in the pool. */
export const DELETE = handle(
  "DELETE /api/sessions/{id}/branches/{branch_id}",
  async (_request, context: Context) => {
    const { id, branch_id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    if (!session.branches.some((b) => b.id === branch_id)) {
      throw new HttpError(notFound(`branch ${branch_id} does not exist in session ${id}`));
    }
    await resultOf(arbor, session.deleteBranch(branch_id));
    return noContent();
  },
);
