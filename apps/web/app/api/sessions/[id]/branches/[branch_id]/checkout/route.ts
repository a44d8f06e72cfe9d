import {
  HttpError,
  handle,
  json,
  loadSession,
  notFound,
  readNoBody,
  resultOf,
} from "@/lib/server/http";
import { branchList } from "@/lib/server/results";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; branch_id: string }> };

/** Makes the branch active; answers the branch list with the new active_branch_id. */
export const POST = handle(
  "POST /api/sessions/{id}/branches/{branch_id}/checkout",
  async (request, context: Context) => {
    const { id, branch_id } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    if (!session.branches.some((b) => b.id === branch_id)) {
      throw new HttpError(notFound(`branch ${branch_id} does not exist in session ${id}`));
    }
    await resultOf(arbor, session.switchBranch(branch_id));
    return json(branchList(session));
  },
);
