import { CreateLinkRequestSchema } from "@arbor/core";
import { audit } from "@/lib/server/audit";
import { handle, json, readBody } from "@/lib/server/http";
import { createLink } from "@/lib/server/people/sharing";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** A read-only link to one branch; its token is in this answer only. */
export const POST = handle(
  "POST /api/sessions/{id}/links",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    const body = await readBody(request, CreateLinkRequestSchema);
    const origin = new URL(request.url).origin;
    const arbor = await getRuntime();
    const link = await createLink(arbor, actor, id, body, origin);
    await audit(arbor, actor, "share_created", `session:${id}`, {
      link: link.id,
      branch: link.branch_id,
      expires_at: link.expires_at,
    });
    return json(link, 201);
  },
);
