import type { FoldListResponse } from "@arbor/core";
import { handle, json, loadSession } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/**
 * The session's folds (context folding, config.folding.enabled): each with its status, tokens
 * used of its budget, the scrubbed message its parent received, and its steps (stored, never in
 * the parent's context), in start order.
 */
export const GET = handle("GET /api/sessions/{id}/folds", async (_request, context: Context) => {
  const { id } = await context.params;
  const session = await loadSession(await getRuntime(), id);
  const body: FoldListResponse = { folds: await session.folds() };
  return json(body);
});
