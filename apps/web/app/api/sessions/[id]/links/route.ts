import { CreateLinkRequestSchema } from "@arbor/core";
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
    return json(await createLink(await getRuntime(), actor, id, body, origin), 201);
  },
);
