import { auditLogOf } from "@/lib/server/audit";
import { forbidden, HttpError, handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Checks the whole audit chain (docs/audit.md, "Verifying"). Owners and admins only. */
export const GET = handle("GET /api/audit/verify", async (_request, _context, actor) => {
  // the lead moves this under authorize(actor, "audit.read", …)
  if (actor.role !== "owner" && actor.role !== "admin") {
    throw new HttpError(forbidden("the audit log is for owners and admins"));
  }
  const { database } = await getRuntime();
  const log = await auditLogOf(database);
  return json(await log.verify());
});
