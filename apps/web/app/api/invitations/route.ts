import { type CreatedInvitationResponse, CreateInvitationRequestSchema } from "@arbor/core";
import { badRequest, forbidden, HttpError, handle, json, readBody } from "@/lib/server/http";
import { publicUrl } from "@/lib/server/people/auth";
import { newToken } from "@/lib/server/people/people";
import { invitationWire } from "@/lib/server/people/wire";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Every invitation, newest first, with its status (admins). */
export const GET = handle("GET /api/invitations", async () => {
  const { people } = await getRuntime();
  const rows = await people.store.invitations();
  const creators = await people.store.peopleByIds(rows.map((row) => row.createdBy));
  return json({
    invitations: rows.map((row) =>
      invitationWire(row, {
        id: row.createdBy,
        name: creators.get(row.createdBy)?.name ?? row.createdBy,
      }),
    ),
  });
});

/**
 * A one-time link that makes an account in `role` (admins; only the owner invites admins).
 * Bound to `email` when given. The secret is in this answer only.
 */
export const POST = handle("POST /api/invitations", async (request, _context, actor) => {
  const body = await readBody(request, CreateInvitationRequestSchema);
  if (body.role === "admin" && actor.role !== "owner") {
    throw new HttpError(forbidden("only the owner invites admins"));
  }
  const arbor = await getRuntime();
  const { store } = arbor.people;
  if (body.email && (await store.personByEmail(body.email)) !== undefined) {
    throw new HttpError(
      badRequest([{ field: "email", message: "someone has this address already" }]),
    );
  }
  const made = newToken();
  const expiresAt = new Date(Date.now() + body.expires_in_hours * 3_600_000).toISOString();
  const row = await store.createInvitation({
    hash: made.hash,
    email: body.email ?? null,
    role: body.role,
    createdBy: actor.id,
    expiresAt,
  });
  arbor.logger.info("invitation created", { by: actor.id, invitation: row.id, role: row.role });
  const created: CreatedInvitationResponse = {
    ...invitationWire(row, { id: actor.id, name: actor.name }),
    token: made.token,
    url: `${publicUrl(process.env)}/invite/${made.token}`,
  };
  return json(created, 201);
});
