import { handle, noContent } from "@/lib/server/http";
import { unshare } from "@/lib/server/people/sharing";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; user_id: string }> };

/** Stops sharing the session with the person. */
export const DELETE = handle(
  "DELETE /api/sessions/{id}/shares/{user_id}",
  async (_request, context: Context) => {
    const { id, user_id } = await context.params;
    await unshare(await getRuntime(), id, user_id);
    return noContent();
  },
);
