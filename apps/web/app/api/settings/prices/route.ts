import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The price table costs are computed with: the shipped list prices with the data directory's
 * prices.json over them (docs/cost.md), its date, sources and whether it was overridden.
 */
export const GET = handle("GET /api/settings/prices", async () => {
  const arbor = await getRuntime();
  return json(arbor.prices());
});
