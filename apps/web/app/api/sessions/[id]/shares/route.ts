import { ShareRequestSchema } from "@arbor/core";
import { audit } from "@/lib/server/audit";
import { handle, json, readBody } from "@/lib/server/http";
import { share, sharesOf } from "@/lib/server/people/sharing";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** The people the session is shared with and its read-only links, each with who made it. */
export const GET = handle("GET /api/sessions/{id}/shares", async (_request, context: Context) => {
  const { id } = await context.params;
  return json(await sharesOf(await getRuntime(), id));
});

/** Shares the session with a person of the install, as viewer or collaborator. */
export const POST = handle(
  "POST /api/sessions/{id}/shares",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    const body = await readBody(request, ShareRequestSchema);
    const arbor = await getRuntime();
    const shared = await share(arbor, actor, id, body);
    await audit(arbor, actor, "share_created", `session:${id}`, {
      person: shared.user_id,
      role: shared.role,
    });
    return json(shared, 201);
  },
);
