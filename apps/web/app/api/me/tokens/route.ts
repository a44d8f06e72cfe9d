import { type CreatedTokenResponse, CreateTokenRequestSchema } from "@arbor/core";
import { badRequest, HttpError, handle, json, readBody } from "@/lib/server/http";
import { newToken } from "@/lib/server/people/people";
import { tokenWire } from "@/lib/server/people/wire";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The caller's personal API tokens, newest first (never their secrets). */
export const GET = handle("GET /api/me/tokens", async (_request, _context, actor) => {
  const { people } = await getRuntime();
  return json({ tokens: (await people.store.tokens(actor.id)).map(tokenWire) });
});

/** A new personal token: its secret is in this answer only; the database keeps its sha256. */
export const POST = handle("POST /api/me/tokens", async (request, _context, actor) => {
  const body = await readBody(request, CreateTokenRequestSchema);
  const expiresAt = body.expires_at ? new Date(body.expires_at).toISOString() : null;
  if (expiresAt !== null && expiresAt <= new Date().toISOString()) {
    throw new HttpError(badRequest([{ field: "expires_at", message: "must be in the future" }]));
  }
  const arbor = await getRuntime();
  const made = newToken();
  const row = await arbor.people.store.createToken({
    userId: actor.id,
    name: body.name,
    scope: body.scope,
    hash: made.hash,
    prefix: made.prefix,
    expiresAt,
  });
  arbor.logger.info("personal token created", {
    person: actor.id,
    token: row.id,
    scope: row.scope,
  });
  const created: CreatedTokenResponse = { ...tokenWire(row), token: made.token };
  return json(created, 201);
});
