import { handle, json, loadSession } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** The session's loop tree: every agent-loop run with status, timing and usage. */
export const GET = handle(
  "GET /api/admin/sessions/{id}/loops",
  async (_request, context: Context) => {
    const arbor = await getRuntime();
    const { id } = await context.params;
    await loadSession(arbor, id);
    return json(await arbor.loopTree(id));
  },
);
