import { CreateBranchRequestSchema } from "@arbor/core";
import { handle, json, loadSession, readBody, resultOf } from "@/lib/server/http";
import { branchList } from "@/lib/server/results";
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
    return json(await resultOf(arbor, session.createBranch(body), body), 201);
  },
);
