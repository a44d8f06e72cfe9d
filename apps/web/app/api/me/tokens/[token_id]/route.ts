import { audit } from "@/lib/server/audit";
import { handle, noContent, notFound, readNoBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ token_id: string }> };

/** Revokes one of the caller's tokens at once, on every instance (the database is asked each time). */
export const DELETE = handle(
  "DELETE /api/me/tokens/{token_id}",
  async (request, context: Context, actor) => {
    const { token_id } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    if (!(await arbor.people.store.revokeToken(actor.id, token_id))) {
      return notFound(`you have no active token ${token_id}`);
    }
    arbor.logger.info("personal token revoked", { person: actor.id, token: token_id });
    await audit(arbor, actor, "token_revoked", `token:${token_id}`);
    return noContent();
  },
);
