import { ImportSessionRequestSchema, type ImportSessionResponse } from "@arbor/core";
import { handle, json, readBody } from "@/lib/server/http";
import { ownSession } from "@/lib/server/people/access";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** A new session from a file written by Export › JSON. */
export const POST = handle("POST /api/sessions/import", async (request, _context, actor) => {
  const body = await readBody(request, ImportSessionRequestSchema);
  const arbor = await getRuntime();
  const session = await arbor.importSession(body);
  await ownSession(arbor, actor, session.id);
  const imported: ImportSessionResponse = {
    session_id: session.id,
    branch_id: session.activeBranchId,
    message_count: session.messages().messages.length,
  };
  return json(imported, 201);
});
