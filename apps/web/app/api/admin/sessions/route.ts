import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Every session with its state, token usage, cost where known (`usage.cost_usd`, summed by the store)
 * and last activity (SessionSummary[], newest first).
 */
export const GET = handle("GET /api/admin/sessions", async () => {
  const arbor = await getRuntime();
  return json(await arbor.manager.list());
});
