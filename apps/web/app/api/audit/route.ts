import { AuditQuerySchema } from "@arbor/core";
import { auditLogOf } from "@/lib/server/audit";
import { handle, json, validate } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The audit log, newest first (docs/audit.md): ?cursor=&limit=&actor=&action=&since=&until=.
 * Owners and admins only: authorize() decides ("audit.read", people/route-actions.ts).
 */
export const GET = handle("GET /api/audit", async (request) => {
  const params = new URL(request.url).searchParams;
  const query = validate(
    AuditQuerySchema,
    Object.fromEntries(
      ["cursor", "limit", "actor", "action", "since", "until"].flatMap((name) => {
        const value = params.get(name);
        return value === null || value === "" ? [] : [[name, value]];
      }),
    ),
  );
  const { database } = await getRuntime();
  const log = await auditLogOf(database);
  return json(await log.list(query));
});
