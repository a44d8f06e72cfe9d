import type { BudgetResponse } from "@arbor/core";
import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The caller's own monthly token budget and what they used of it this month. */
export const GET = handle("GET /api/me/usage", async (_request, _context: unknown, actor) => {
  const arbor = await getRuntime();
  const body: BudgetResponse = await arbor.budgets.view(actor.id);
  return json(body);
});
