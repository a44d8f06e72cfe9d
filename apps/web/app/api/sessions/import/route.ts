import { ImportSessionRequestSchema, type ImportSessionResponse } from "@arbor/core";
import { handle, json, readBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** A new session from a file written by Export › JSON. */
export const POST = handle("POST /api/sessions/import", async (request) => {
  const body = await readBody(request, ImportSessionRequestSchema);
  const session = await (await getRuntime()).importSession(body);
  const imported: ImportSessionResponse = {
    session_id: session.id,
    branch_id: session.activeBranchId,
    message_count: session.messages().messages.length,
  };
  return json(imported, 201);
});
