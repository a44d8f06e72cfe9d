import { audit } from "@/lib/server/audit";
import { handle, noContent, readNoBody } from "@/lib/server/http";
import { revokeLink } from "@/lib/server/people/sharing";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; link_id: string }> };

/** Revokes a read-only link: it opens no more. */
export const DELETE = handle(
  "DELETE /api/sessions/{id}/links/{link_id}",
  async (request, context: Context, actor) => {
    const { id, link_id } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    await revokeLink(arbor, id, link_id);
    await audit(arbor, actor, "share_revoked", `session:${id}`, { link: link_id });
    return noContent();
  },
);
