import { CreateSessionRequestSchema, type CreateSessionResponse } from "@arbor/core";
import { handle, json, readBody } from "@/lib/server/http";
import { ownSession, visibleSessions } from "@/lib/server/people/access";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The sessions the caller may see, newest first (SessionSummary[]). */
export const GET = handle("GET /api/sessions", async (_request, _context, actor) => {
  const arbor = await getRuntime();
  return json(await visibleSessions(arbor, actor, await arbor.manager.list()));
});

export const POST = handle("POST /api/sessions", async (request, _context, actor) => {
  const body = await readBody(request, CreateSessionRequestSchema);
  const arbor = await getRuntime();
  const session = await arbor.createSession(body);
  await ownSession(arbor, actor, session.id);
  const created: CreateSessionResponse = {
    session_id: session.id,
    branch_id: session.activeBranchId,
  };
  return json(created, 201);
});
