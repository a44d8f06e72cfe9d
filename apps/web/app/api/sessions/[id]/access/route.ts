import { handle, json } from "@/lib/server/http";
import { accessOf } from "@/lib/server/people/sharing";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** The caller's relation to the session and what it lets them do. */
export const GET = handle(
  "GET /api/sessions/{id}/access",
  async (_request, context: Context, actor) => {
    const { id } = await context.params;
    return json(await accessOf(await getRuntime(), actor, id));
  },
);
