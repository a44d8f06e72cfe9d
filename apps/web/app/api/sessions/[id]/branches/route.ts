import { CreateBranchRequestSchema } from "@arbor/core";
import {
  HttpError,
  handle,
  internalError,
  json,
  loadSession,
  readBody,
  settle,
} from "@/lib/server/http";
import { branchList, createdBranchId } from "@/lib/server/results";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

export const GET = handle("GET /api/sessions/{id}/branches", async (_request, context: Context) => {
  const { id } = await context.params;
  const session = await loadSession(await getRuntime(), id);
  return json(branchList(session));
});

/** Forks the active branch after from_message_id; the new branch becomes active. */
export const POST = handle(
  "POST /api/sessions/{id}/branches",
  async (request, context: Context) => {
    const { id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const body = await readBody(request, CreateBranchRequestSchema);
    const events = await settle(arbor, session.createBranch(body), body);
    const branchId = createdBranchId(events);
    const branch = session.branches.find((b) => b.id === branchId);
    if (branch === undefined) throw new HttpError(internalError());
    return json(branch, 201);
  },
);
