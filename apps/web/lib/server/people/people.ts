import { createHash, randomBytes } from "node:crypto";
import type { Logger } from "@arbor/core";
import type { Database, PeopleStore, Person, PersonRole } from "@arbor/db";
import { APIError } from "better-auth/api";
import { audit } from "../audit";
import { sameSecret } from "../install-token";
import type { Actor, TokenScope } from "./actor";
import {
  type Auth,
  createAuth,
  hashPassword,
  oidcSettings,
  type SignupMode,
  signupMode,
} from "./auth";
import { ssoRole } from "./sso-roles";

// The people of an install, as the server sees them: the owner (made at first start), the
// better-auth instance, and how a request's credential becomes an Actor. docs/accounts.md.

type Env = Record<string, string | undefined>;

/** The install token's row among the owner's personal tokens (it can be revoked like them). */
export const INSTALL_TOKEN_ID = "install-token";
/** Personal tokens start with this, so a secret scanner (and a person) knows them. */
export const TOKEN_PREFIX = "arbor_";

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** A new personal token: shown once, only its hash kept. */
export function newToken(): { token: string; hash: string; prefix: string } {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { token, hash: sha256(token), prefix: token.slice(0, TOKEN_PREFIX.length + 6) };
}

/** better-auth's session cookie names (plain, and with the __Secure- prefix on https). */
const SESSION_COOKIES = ["arbor.session_token", "__Secure-arbor.session_token"];

export type Authentication = Actor | "wrong" | "none";

/**
 * How long who a credential is, and a person's relation to a session, may be answered from
 * memory: a sign-out, revocation or share through another instance holds here within this time
 * (the issue asks for 1 s); through this instance at once.
 */
export const PEOPLE_CACHE_MS = 500;

export interface PeopleOptions {
  database: Database;
  env: Env;
  installToken: string;
  logger: Logger;
}

export class People {
  readonly store: PeopleStore;
  readonly auth: Auth;
  readonly signup: SignupMode;
  readonly sso: { name: string } | undefined;
  readonly #installToken: string;
  readonly #installHash: string;
  readonly #logger: Logger;
  #owner: Person;

  private constructor(options: PeopleOptions, store: PeopleStore, owner: Person) {
    this.store = store;
    this.#owner = owner;
    this.#installToken = options.installToken;
    this.#installHash = sha256(options.installToken);
    this.#logger = options.logger;
    this.signup = signupMode(options.env);
    const oidc = oidcSettings(options.env);
    this.sso = oidc === undefined ? undefined : { name: oidc.name };
    this.auth = createAuth({
      database: options.database,
      env: options.env,
      installToken: options.installToken,
      installTokenValid: async () => (await this.#installRow())?.revokedAt === null,
      ownerId: () => this.#owner.id,
      beforeCreateUser: (user, source) => this.#admit(user, source),
      mayStartSession: async (userId) => (await this.store.person(userId))?.disabled !== true,
      takeInvitation: async (token, email, userId) => {
        const found = await this.store.openInvitation(sha256(token));
        if (found === undefined || (found.email !== null && found.email !== email))
          return undefined;
        return (await this.store.consumeInvitation(found.id, userId))
          ? { id: found.id, role: found.role }
          : undefined;
      },
      restoreInvitation: (id) => this.store.restoreInvitation(id),
      ssoSignedIn: async (user, claimed) => {
        const person = await this.store.person(user.id);
        if (person === undefined) return;
        const role = ssoRole(person.role, claimed);
        if (role === person.role) return;
        await this.store.setRole(person.id, role);
        this.#logger.info("role changed by the SSO roles claim", {
          email: person.email,
          from: person.role,
          to: role,
        });
        // the system changed it, from the provider's claim
        await audit(
          { database: options.database, logger: this.#logger },
          null,
          "role_changed",
          `person:${person.id}`,
          {
            from: person.role,
            to: role,
            by: "sso_roles_claim",
          },
        );
      },
      // an SSO sign-up through an invitation for that address uses the invitation up
      afterCreateUser: async (user) => {
        const invitation = await this.store.pendingInvitationFor(user.email);
        if (invitation !== undefined) await this.store.consumeInvitation(invitation.id, user.id);
      },
      sendResetPassword: async ({ email, url }) => {
        // no mail server: the owner reads it from the log and passes it on (docs/accounts.md)
        this.#logger.warn("password reset requested", { email, url });
      },
    });
  }

  /** Opens the people of the database: the owner is made at first start. */
  static async open(options: PeopleOptions): Promise<People> {
    // @arbor/db at run time, not bundled (store.ts says why)
    const { PeopleStore: Store } = await import(/* turbopackIgnore: true */ "@arbor/db");
    const store = new Store(options.database, { cacheMs: PEOPLE_CACHE_MS });
    const owner = await store.ensureOwner({ name: "Owner", email: "owner@localhost" });
    const people = new People(options, store, owner);
    await people.#registerInstallToken();
    return people;
  }

  get owner(): Person {
    return this.#owner;
  }

  /**
   * Who a request is: a personal token or the install token (Bearer), else the browser's
   * session cookie. "wrong": a credential that is not (or no longer) valid; "none": none.
   */
  async authenticate(headers: Headers, address: string): Promise<Authentication> {
    const authorization = headers.get("authorization");
    const bearer =
      authorization === null ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (bearer !== undefined) return this.#bearer(bearer, address);
    if (authorization !== null) return "wrong";
    if (!hasSessionCookie(headers.get("cookie"))) return "none";
    const cookie = sessionCookieOf(headers.get("cookie"));
    const found = await this.store.remember(`cookie:${cookie}`, () =>
      this.auth.api.getSession({ headers, query: { disableRefresh: false } }).catch(() => null),
    );
    if (found === null) return "wrong";
    const person = await this.store.person(found.user.id);
    if (person === undefined || person.disabled) return "wrong";
    return { ...actorOf(person), via: "session", sessionToken: found.session.token, address };
  }

  async #bearer(bearer: string, address: string): Promise<Authentication> {
    if (sameSecret(bearer, this.#installToken)) {
      // by its hash, as any token: the store remembers it briefly (forgotten at once when it is
      // revoked or replaced here), where listing the owner's tokens asked the database each time
      const found = await this.store.tokenByHash(this.#installHash);
      const row = found?.id === INSTALL_TOKEN_ID ? found : undefined;
      if (row === undefined || row.revokedAt !== null) return "wrong";
      const owner = await this.store.person(row.userId);
      if (owner === undefined || owner.disabled) return "wrong";
      void this.store.touchToken(row.id).catch(() => undefined);
      return { ...actorOf(owner), via: "install_token", address };
    }
    const row = await this.store.tokenByHash(sha256(bearer));
    if (row === undefined || row.revokedAt !== null) return "wrong";
    if (row.expiresAt !== null && row.expiresAt <= new Date().toISOString()) return "wrong";
    const person = await this.store.person(row.userId);
    if (person === undefined || person.disabled) return "wrong";
    void this.store.touchToken(row.id).catch(() => undefined);
    return { ...actorOf(person), via: "token", scope: row.scope as TokenScope, address };
  }

  /**
   * Signs a browser in with the install token (the `?token=` URL): the Set-Cookie headers of a
   * new better-auth session of the owner; undefined when the token is wrong or revoked.
   */
  async exchangeInstallToken(token: string, origin: string): Promise<string[] | undefined> {
    const response = await this.auth.handler(
      new Request(`${origin}/api/auth/sign-in/install-token`, {
        method: "POST",
        headers: { "content-type": "application/json", origin },
        body: JSON.stringify({ token }),
      }),
    );
    if (!response.ok) return undefined;
    const cookies = response.headers.getSetCookie();
    return cookies.length > 0 ? cookies : undefined;
  }

  /**
   * ARBOR_OWNER_EMAIL / ARBOR_OWNER_PASSWORD (a container's first start, docs/accounts.md): the
   * owner's address, and a password when the owner has none yet (one set later in Settings ›
   * Account is never overwritten by the environment).
   */
  async applyOwnerCredentials(env: Env): Promise<void> {
    const email = env.ARBOR_OWNER_EMAIL?.trim().toLowerCase();
    if (email && email !== this.#owner.email) {
      const taken = await this.store.personByEmail(email);
      if (taken !== undefined && taken.id !== this.#owner.id) {
        throw new Error(`ARBOR_OWNER_EMAIL: ${email} is another person's address`);
      }
      this.#owner = (await this.store.updatePerson(this.#owner.id, { email })) ?? this.#owner;
    }
    const password = env.ARBOR_OWNER_PASSWORD;
    if (password === undefined || password === "") return;
    if (password.length < 10)
      throw new Error("ARBOR_OWNER_PASSWORD must have at least 10 characters");
    if ((await this.store.signInMethods(this.#owner.id)).password) return;
    await this.store.setPasswordHash(this.#owner.id, await hashPassword(password));
    this.#logger.info("the owner's password was set from ARBOR_OWNER_PASSWORD", {
      email: this.#owner.email,
    });
  }

  /** Whether anyone can sign in without the install token: a password, a passkey or SSO. */
  async realSignIn(): Promise<boolean> {
    if (this.sso !== undefined) return true;
    const methods = await this.store.signInMethods(this.#owner.id);
    return methods.password || methods.passkeys > 0;
  }

  async #installRow() {
    return (await this.store.tokens(this.#owner.id)).find((t) => t.id === INSTALL_TOKEN_ID);
  }

  /** The install token as the owner's token row, so it is listed and can be revoked. */
  async #registerInstallToken(): Promise<void> {
    const hash = this.#installHash;
    const existing = await this.store.tokenByHash(hash);
    if (existing !== undefined) {
      if (existing.revokedAt !== null) {
        this.#logger.warn(
          "the install token was revoked: sign in with a password, passkey or SSO, or set a new ARBOR_TOKEN",
        );
      }
      return;
    }
    // a new install token (first start, or ARBOR_TOKEN changed): it replaces the old row
    await this.store.replaceToken(INSTALL_TOKEN_ID, {
      userId: this.#owner.id,
      name: "install token (ARBOR_TOKEN)",
      scope: "admin",
      hash,
      prefix: this.#installToken.slice(0, 6),
      expiresAt: null,
    });
  }

  /** Who may make an account (ARBOR_SIGNUP) and with which role. */
  async #admit(
    user: { email: string; name: string },
    source: "password" | "sso",
  ): Promise<{ role: string }> {
    const invited = await this.store.pendingInvitationFor(user.email);
    if (invited !== undefined) return { role: invited.role };
    const open = this.signup === "open" || (this.signup === "sso" && source === "sso");
    if (!open) {
      // the code sends an SSO sign-in back to the sign-in page (?error=invitation_required)
      throw new APIError("FORBIDDEN", {
        message: "accounts are made by invitation here: ask an admin for one",
        code: "invitation_required",
      });
    }
    return { role: "member" satisfies PersonRole };
  }
}

function actorOf(person: Person): Omit<Actor, "via" | "address"> {
  return { id: person.id, name: person.name, email: person.email, role: person.role };
}

/** The session cookie's value (the first of the names better-auth uses). */
function sessionCookieOf(header: string | null): string {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && SESSION_COOKIES.includes(part.slice(0, eq).trim())) {
      return part.slice(eq + 1).trim();
    }
  }
  return "";
}

function hasSessionCookie(header: string | null): boolean {
  if (header === null) return false;
  return header
    .split(";")
    .some((part) => SESSION_COOKIES.includes(part.slice(0, part.indexOf("=")).trim()));
}
