import type { SetPasswordRequest } from "@arbor/core";
import { badRequest, HttpError, json } from "../http";
import type { Runtime } from "../runtime";
import type { Actor } from "./actor";
import { hashPassword, verifyPassword } from "./auth";
import { SIGN_IN_LIMITS } from "./sign-in";

// POST /api/me/password (Settings › Account): a person sets their own password. A first one needs
// no current password (the owner made at first start has none); a change needs the current one,
// and wrong guesses count against the account's sign-in limit like a failed sign-in, so this is
// no side door around it. A change ends the person's other browser sessions. docs/accounts.md,
// "Passwords".

/** undefined when the password was set, else the answer (400 naming the field, 429). */
export async function setOwnPassword(
  runtime: Runtime,
  actor: Actor,
  body: SetPasswordRequest,
): Promise<Response | undefined> {
  const { store } = runtime.people;
  const current = await store.passwordHash(actor.id);
  if (current !== undefined) {
    if (body.current_password === undefined) {
      throw new HttpError(
        badRequest([
          { field: "current_password", message: "your current password is needed to change it" },
        ]),
      );
    }
    const key = `account:${(actor.email ?? actor.id).toLowerCase()}`;
    const { windowMs } = SIGN_IN_LIMITS;
    const failures = await store.failures(key, windowMs);
    if (failures.count >= SIGN_IN_LIMITS.account) {
      const seconds = Math.max(1, Math.ceil(failures.retryAfterMs / 1000));
      return json(
        {
          error: "too_many_requests",
          message: `too many wrong passwords; try again in ${seconds} s`,
        },
        429,
        { "retry-after": String(seconds) },
      );
    }
    if (!(await verifyPassword({ hash: current, password: body.current_password }))) {
      await store.fail([key, `address:${actor.address}`], windowMs);
      throw new HttpError(
        badRequest([{ field: "current_password", message: "that is not your current password" }]),
      );
    }
  }
  await store.setPasswordHash(actor.id, await hashPassword(body.password));
  // a changed password ends every other browser session of the person: whoever knew the old
  // one is signed out (personal tokens stay; they are revoked one by one in Settings › Tokens)
  const ended = current === undefined ? 0 : await store.endSessionsOf(actor.id, actor.sessionToken);
  runtime.logger.info("password set", {
    email: actor.email,
    first: current === undefined,
    ended_sessions: ended,
  });
  return undefined;
}
