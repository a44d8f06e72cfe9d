import { handle, json, requireAdmin } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Every session with its state, token usage, cost where known (`cost_usd`, summed by the store)
 * and last activity (SessionSummary[], newest first).
 */
export const GET = handle("GET /api/admin/sessions", async (request) => {
  const arbor = await getRuntime();
  requireAdmin(arbor, request);
  return json(await arbor.manager.list());
});
