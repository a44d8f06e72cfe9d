import { SetPasswordRequestSchema } from "@arbor/core";
import { handle, noContent, readBody } from "@/lib/server/http";
import { setOwnPassword } from "@/lib/server/people/password";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Sets the caller's password: a first one freely, a change with the current one. */
export const POST = handle("POST /api/me/password", async (request, _context, actor) => {
  const body = await readBody(request, SetPasswordRequestSchema);
  const refused = await setOwnPassword(await getRuntime(), actor, body);
  return refused ?? noContent();
});
