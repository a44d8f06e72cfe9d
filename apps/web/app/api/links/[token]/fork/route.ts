import { handle, json, readNoBody } from "@/lib/server/http";
import { forkLink } from "@/lib/server/people/sharing";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ token: string }> };

/** A new session of the caller's own with the linked branch's messages. */
export const POST = handle(
  "POST /api/links/{token}/fork",
  async (request, context: Context, actor) => {
    const { token } = await context.params;
    await readNoBody(request);
    return json(await forkLink(await getRuntime(), actor, token), 201);
  },
);
