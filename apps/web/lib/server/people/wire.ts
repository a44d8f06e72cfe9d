import type { ApiTokenResponse, InvitationResponse, MeResponse, PersonResponse } from "@arbor/core";
import type { ApiTokenRow, InvitationRow, Person } from "@arbor/db";
import type { Runtime } from "../runtime";
import type { Actor } from "./actor";
import { INSTALL_TOKEN_ID } from "./people";

// People as the API answers them (snake_case, core/protocol/people.ts).

export function personWire(person: Person): PersonResponse {
  return {
    id: person.id,
    name: person.name,
    email: person.email,
    role: person.role,
    disabled: person.disabled,
    created_at: person.createdAt,
  };
}

export async function meWire(runtime: Runtime, actor: Actor): Promise<MeResponse> {
  const { people } = runtime;
  const person = await people.store.person(actor.id);
  if (person === undefined) throw new Error(`person ${actor.id} is gone`);
  return {
    ...personWire(person),
    via: actor.via,
    scope: actor.scope ?? null,
    sign_in: await people.store.signInMethods(actor.id),
    sso: people.sso ?? null,
  };
}

export function tokenWire(row: ApiTokenRow): ApiTokenResponse {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope as ApiTokenResponse["scope"],
    prefix: row.prefix,
    created_at: row.createdAt,
    expires_at: row.expiresAt,
    last_used_at: row.lastUsedAt,
    revoked_at: row.revokedAt,
    install: row.id === INSTALL_TOKEN_ID,
  };
}

export function invitationWire(
  row: InvitationRow,
  creator: { id: string; name: string },
  now = new Date().toISOString(),
): InvitationResponse {
  const status =
    row.usedAt !== null
      ? "used"
      : row.revokedAt !== null
        ? "revoked"
        : row.expiresAt <= now
          ? "expired"
          : "open";
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    created_by: creator,
    created_at: row.createdAt,
    expires_at: row.expiresAt,
    used_at: row.usedAt,
    revoked_at: row.revokedAt,
    status,
  };
}
