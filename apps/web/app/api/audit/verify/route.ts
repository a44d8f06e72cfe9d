import { auditLogOf } from "@/lib/server/audit";
import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Checks the whole audit chain (docs/audit.md, "Verifying"). Owners and admins only ("audit.read"). */
export const GET = handle("GET /api/audit/verify", async () => {
  const { database } = await getRuntime();
  const log = await auditLogOf(database);
  return json(await log.verify());
});
