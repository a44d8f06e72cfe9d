import type { OptimizeResponse } from "@arbor/core";
import { handle, json, loadSession, readNoBody, resultOf } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** "Optimize now": optimizes the active branch even below the trigger; 409 unless Idle. */
export const POST = handle(
  "POST /api/sessions/{id}/optimize",
  async (request, context: Context) => {
    const { id } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const result = await resultOf(arbor, session.optimize());
    const body: OptimizeResponse = { ...result, context_usage: session.contextUsage() };
    return json(body);
  },
);
