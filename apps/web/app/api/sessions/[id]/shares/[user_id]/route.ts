import { audit } from "@/lib/server/audit";
import { handle, noContent, readNoBody } from "@/lib/server/http";
import { unshare } from "@/lib/server/people/sharing";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; user_id: string }> };

/** Stops sharing the session with the person. */
export const DELETE = handle(
  "DELETE /api/sessions/{id}/shares/{user_id}",
  async (request, context: Context, actor) => {
    const { id, user_id } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    await unshare(arbor, id, user_id);
    await audit(arbor, actor, "share_revoked", `session:${id}`, { person: user_id });
    return noContent();
  },
);
