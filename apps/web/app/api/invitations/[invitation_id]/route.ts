import { handle, noContent, notFound, readNoBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ invitation_id: string }> };

/** Revokes an invitation that has not been used (admins). */
export const DELETE = handle(
  "DELETE /api/invitations/{invitation_id}",
  async (request, context: Context, actor) => {
    const { invitation_id } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    if (!(await arbor.people.store.revokeInvitation(invitation_id))) {
      return notFound(`no open invitation ${invitation_id}`);
    }
    arbor.logger.info("invitation revoked", { by: actor.id, invitation: invitation_id });
    return noContent();
  },
);
