import { effectivePrices, type PricesResponse } from "@arbor/core";
import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The price table costs are computed with: the shipped list prices with the data directory's
 * prices.json over them (docs/cost.md), its date, sources and whether it was overridden.
 */
export const GET = handle("GET /api/settings/prices", async () => {
  // the runtime's start put the data directory's file in force
  await getRuntime();
  const prices: PricesResponse = effectivePrices();
  return json(prices);
});
