import { createHmac } from "node:crypto";
import type { Database } from "@arbor/db";
import { passkey } from "@better-auth/passkey";
import { hash, verify } from "@node-rs/argon2";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthEndpoint } from "better-auth/api";
import { setSessionCookie } from "better-auth/cookies";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import { z } from "zod";
import { sameSecret } from "../install-token";
import { gateSettings, hostAllowed } from "../request-gate";
import { roleFromClaim, type SsoRole } from "./sso-roles";

// The accounts library (docs/decisions/0039): better-auth over the same database as the sessions,
// through its Prisma adapter. Its sessions live in the database only (no cookie cache), so a
// sign-out or a revocation is refused by every instance on the next request. Passwords are
// hashed with argon2id at OWASP's parameters instead of its default scrypt. docs/accounts.md.

type Env = Record<string, string | undefined>;

/** OWASP Password Storage Cheat Sheet: argon2id, 19 MiB, 2 iterations, 1 lane. */
export const ARGON2ID = {
  /** Algorithm.Argon2id (a const enum: its value, as verbatimModuleSyntax needs) */
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID);
}

export async function verifyPassword(data: { hash: string; password: string }): Promise<boolean> {
  try {
    return await verify(data.hash, data.password);
  } catch {
    return false; // not an argon2 hash
  }
}

/** ARBOR_SIGNUP: who may make an account without an invitation. */
export type SignupMode = "invite" | "sso" | "open";

export function signupMode(env: Env): SignupMode {
  const value = env.ARBOR_SIGNUP?.trim().toLowerCase() || "invite";
  if (value === "invite" || value === "sso" || value === "open") return value;
  throw new Error(`ARBOR_SIGNUP must be invite, sso or open (it is ${JSON.stringify(value)})`);
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** the sign-in button's label */
  name: string;
  /** a claim of the ID token / userinfo whose values map to roles */
  rolesClaim: string | undefined;
}

/** ARBOR_OIDC_*: the generic OpenID Connect provider, when its three required variables are set. */
export function oidcSettings(env: Env): OidcSettings | undefined {
  const issuer = env.ARBOR_OIDC_ISSUER?.trim();
  const clientId = env.ARBOR_OIDC_CLIENT_ID?.trim();
  const clientSecret = env.ARBOR_OIDC_CLIENT_SECRET?.trim();
  const named = [issuer, clientId, clientSecret].filter(Boolean).length;
  if (named === 0) return undefined;
  if (named < 3) {
    throw new Error(
      "SSO needs ARBOR_OIDC_ISSUER, ARBOR_OIDC_CLIENT_ID and ARBOR_OIDC_CLIENT_SECRET together",
    );
  }
  return {
    issuer: (issuer as string).replace(/\/+$/, ""),
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    name: env.ARBOR_OIDC_NAME?.trim() || "SSO",
    rolesClaim: env.ARBOR_OIDC_ROLES_CLAIM?.trim() || undefined,
  };
}

/**
 * The provider id of the generic OpenID Connect provider. better-auth 1.7 serves generic OAuth
 * providers through its social endpoints: sign-in POST /api/auth/sign-in/social
 * {provider: "oidc"}, callback (the redirect URI) /api/auth/callback/oidc.
 */
export const OIDC_PROVIDER_ID = "oidc";

/**
 * The URL people open: ARBOR_PUBLIC_URL, else http://HOST:PORT (localhost for a loopback or
 * wildcard HOST). OAuth callbacks and passkeys are bound to it.
 */
export function publicUrl(env: Env): string {
  const explicit = env.ARBOR_PUBLIC_URL?.trim();
  if (explicit) return explicit.replace(/\/+$/, "");
  const host = env.HOST?.trim() || "127.0.0.1";
  const port = env.PORT?.trim() || "3000";
  const shown = ["0.0.0.0", "::", "127.0.0.1", "::1"].includes(host) ? "localhost" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}

/** The key better-auth signs its cookies with: ARBOR_AUTH_SECRET, else derived from the token. */
export function authSecret(env: Env, installToken: string): string {
  return (
    env.ARBOR_AUTH_SECRET?.trim() ||
    createHmac("sha256", installToken).update("arbor-auth-secret-v1").digest("base64url")
  );
}

export interface AuthOptions {
  database: Database;
  env: Env;
  installToken: string;
  /** whether the install token may still sign a browser in (it has not been revoked) */
  installTokenValid: () => Promise<boolean>;
  /** the owner's id, for the install token's sign-in */
  ownerId: () => string;
  /** before a user is created: refuse (throw APIError) or decide the role */
  beforeCreateUser: (
    user: { email: string; name: string },
    source: "password" | "sso",
  ) => Promise<{
    role: string;
  }>;
  /** after a user was created (consume the invitation, audit) */
  afterCreateUser?: (user: { id: string; email: string }) => Promise<void>;
  /** whether a person may get a new session (a disabled person may not) */
  mayStartSession: (userId: string) => Promise<boolean>;
  /**
   * Takes an invitation for a new account: its role, once (the invitation is marked used); an
   * invitation bound to another email address, used, revoked or expired gives undefined
   */
  takeInvitation: (
    token: string,
    email: string,
    userId: string,
  ) => Promise<{ id: string; role: string } | undefined>;
  /** gives a taken invitation back (the account could not be made) */
  restoreInvitation: (id: string) => Promise<void>;
  /**
   * At every SSO sign-in (the account exists by then): the role its roles claim names
   * (ARBOR_OIDC_ROLES_CLAIM), undefined when the variable is unset or the claim names none
   */
  ssoSignedIn?: (
    user: { id: string; email: string },
    claimed: SsoRole | undefined,
  ) => Promise<void>;
  /** a password reset link (there is no mail server: the log gets it; docs/accounts.md) */
  sendResetPassword?: (data: { email: string; url: string }) => Promise<void>;
}

/** What Arbor uses of the better-auth instance (its whole type names modules of its plugins). */
export interface Auth {
  /** answers /api/auth/** */
  handler(request: Request): Promise<Response>;
  api: {
    /** the browser session of a request's cookie, from the database; null when none is valid */
    getSession(input: { headers: Headers; query?: { disableRefresh?: boolean } }): Promise<{
      session: { id: string; token: string; userId: string; expiresAt: Date };
      user: { id: string; name: string; email: string };
    } | null>;
  };
}

/** Whether a better-auth endpoint path is the SSO provider's callback (older: /oauth2/callback/…). */
export function isSsoCallback(path: string | undefined): boolean {
  return path !== undefined && (path.startsWith("/callback/") || path.startsWith("/oauth2/"));
}

export function createAuth(options: AuthOptions): Auth {
  const { env } = options;
  const baseURL = publicUrl(env);
  const oidc = oidcSettings(env);
  const mode = signupMode(env);
  const passkeyOrigin = new URL(baseURL);
  // accounts being made from an invitation right now (email → role): the create hook's answer
  const invited = new Map<string, string>();
  // SSO sign-ins between the provider's answer and the session (email → the claim's role)
  const claimed = new Map<string, { role: SsoRole | undefined; at: number }>();
  const claimedRole = (email: string): SsoRole | undefined => {
    const now = Date.now();
    for (const [key, entry] of claimed) if (now - entry.at > 5 * 60_000) claimed.delete(key);
    return claimed.get(email.toLowerCase())?.role;
  };
  const auth = betterAuth({
    appName: "Arbor",
    baseURL,
    basePath: "/api/auth",
    secret: authSecret(env, options.installToken),
    database: prismaAdapter(options.database.client, {
      provider: options.database.provider === "postgresql" ? "postgresql" : "sqlite",
    }),
    user: {
      additionalFields: {
        role: { type: "string", required: false, defaultValue: "member", input: false },
        disabled: { type: "boolean", required: false, defaultValue: false, input: false },
      },
    },
    session: {
      modelName: "authSession",
      expiresIn: 60 * 60 * 24 * 7,
      updateAge: 60 * 60 * 24,
      // no cookie cache: every request asks the database, so a revoked session ends everywhere
      cookieCache: { enabled: false },
    },
    account: { modelName: "authAccount", accountLinking: { enabled: false } },
    verification: { modelName: "verification" },
    emailAndPassword: {
      enabled: true,
      // an account is made through an invitation (POST /api/invitations/{token}/accept) unless
      // ARBOR_SIGNUP=open
      disableSignUp: mode !== "open",
      minPasswordLength: 10,
      maxPasswordLength: 256,
      autoSignIn: true,
      revokeSessionsOnPasswordReset: true,
      password: { hash: hashPassword, verify: verifyPassword },
      ...(options.sendResetPassword
        ? {
            sendResetPassword: async ({ user, url }: { user: { email: string }; url: string }) =>
              options.sendResetPassword?.({ email: user.email, url }),
          }
        : {}),
    },
    // sign-in failures are counted per account and per address in the database (people.ts)
    rateLimit: { enabled: false },
    // the public URL, and the origin a request came to when its Host is one the gate allows
    // (the printed http://127.0.0.1:3000 and http://localhost:3000 are both the loopback server;
    // the gate has already refused another Host, and an Origin other than the Host's)
    trustedOrigins: (request) => {
      const host = request?.headers.get("host");
      if (request === undefined || !host || !hostAllowed(host, gateSettings(env).allowedHosts)) {
        return [baseURL];
      }
      return [baseURL, `${new URL(request.url).protocol}//${host}`];
    },
    advanced: {
      cookiePrefix: "arbor",
      useSecureCookies: baseURL.startsWith("https:"),
      database: { generateId: () => crypto.randomUUID() },
      ipAddress: { ipAddressHeaders: ["x-forwarded-for"] },
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user, context) => {
            const invitedAs = invited.get(String(user.email).toLowerCase());
            if (invitedAs !== undefined) return { data: { ...user, role: invitedAs } };
            // better-auth 1.7 runs generic OAuth providers through its social callback
            const source = isSsoCallback(context?.path) ? "sso" : "password";
            const admitted = await options.beforeCreateUser(
              { email: String(user.email), name: String(user.name) },
              source,
            );
            // SSO roles apply from the first sign-in (sso-roles.ts: never `owner`)
            const role =
              (source === "sso" ? claimedRole(String(user.email)) : undefined) ?? admitted.role;
            return { data: { ...user, email: String(user.email).toLowerCase(), role } };
          },
          after: async (user) => {
            await options.afterCreateUser?.({ id: user.id, email: user.email });
          },
        },
      },
      session: {
        create: {
          // a disabled person signs in nowhere: no session is made for them; and at every SSO
          // sign-in the roles claim is applied again (people.ts logs a change)
          before: async (session, context) => {
            if (!(await options.mayStartSession(String(session.userId)))) {
              throw new APIError("FORBIDDEN", { message: "this account is disabled" });
            }
            if (context === null || context === undefined || !isSsoCallback(context.path)) return;
            const user = await context.context.internalAdapter.findUserById(session.userId);
            if (user === null) return;
            const role = claimedRole(user.email);
            claimed.delete(user.email.toLowerCase());
            await options.ssoSignedIn?.({ id: user.id, email: user.email }, role);
          },
        },
      },
    },
    plugins: [
      passkey({ rpID: passkeyOrigin.hostname, rpName: "Arbor", origin: passkeyOrigin.origin }),
      ...(oidc === undefined
        ? []
        : [
            genericOAuth({
              config: [
                {
                  providerId: OIDC_PROVIDER_ID,
                  discoveryUrl: `${oidc.issuer}/.well-known/openid-configuration`,
                  clientId: oidc.clientId,
                  clientSecret: oidc.clientSecret,
                  scopes: ["openid", "email", "profile"],
                  pkce: true,
                  // who may sign up is decided in beforeCreateUser (ARBOR_SIGNUP, invitations)
                  disableSignUp: false,
                  // the roles claim, read from the verified ID token or userinfo, kept for the
                  // create and session hooks of this sign-in
                  mapProfileToUser: (profile) => {
                    const email = typeof profile.email === "string" ? profile.email : undefined;
                    if (email !== undefined) {
                      const role =
                        oidc.rolesClaim === undefined
                          ? undefined
                          : roleFromClaim((profile as Record<string, unknown>)[oidc.rolesClaim]);
                      claimed.set(email.toLowerCase(), { role, at: Date.now() });
                    }
                    return {};
                  },
                },
              ],
            }),
          ]),
      {
        id: "arbor-install-token",
        endpoints: {
          // an invitation's link: a new account with a password, in the invitation's role
          signUpInvitation: createAuthEndpoint(
            "/sign-up/invitation",
            {
              method: "POST",
              body: z.object({
                token: z.string().min(1),
                name: z.string().trim().min(1).max(100),
                email: z.email().max(254),
                password: z.string().min(10).max(256),
              }),
            },
            async (ctx) => {
              const email = ctx.body.email.toLowerCase();
              if ((await ctx.context.internalAdapter.findUserByEmail(email)) !== null) {
                throw new APIError("BAD_REQUEST", {
                  message: "this invitation cannot make an account for that email address",
                });
              }
              const userId = crypto.randomUUID();
              const taken = await options.takeInvitation(ctx.body.token, email, userId);
              if (taken === undefined) {
                throw new APIError("BAD_REQUEST", {
                  message:
                    "this invitation is not valid: used, revoked, expired or for another address",
                });
              }
              try {
                invited.set(email, taken.role);
                const user = await ctx.context.internalAdapter.createUser(
                  {
                    id: userId,
                    email,
                    name: ctx.body.name,
                    emailVerified: false,
                  },
                  { method: "invitation" },
                );
                await ctx.context.internalAdapter.linkAccount({
                  userId: user.id,
                  providerId: "credential",
                  accountId: user.id,
                  password: await hashPassword(ctx.body.password),
                });
                const session = await ctx.context.internalAdapter.createSession(user.id);
                await setSessionCookie(ctx, { session, user });
                return ctx.json({
                  user: { id: user.id, name: user.name, email, role: taken.role },
                });
              } catch (error) {
                await options.restoreInvitation(taken.id);
                throw error;
              } finally {
                invited.delete(email);
              }
            },
          ),
          // the `?token=` URL the server prints: the owner's browser, signed in like any other
          signInInstallToken: createAuthEndpoint(
            "/sign-in/install-token",
            { method: "POST", body: z.object({ token: z.string() }) },
            async (ctx) => {
              if (
                !sameSecret(ctx.body.token, options.installToken) ||
                !(await options.installTokenValid())
              ) {
                throw new APIError("UNAUTHORIZED", { message: "invalid token" });
              }
              const user = await ctx.context.internalAdapter.findUserById(options.ownerId());
              if (user === null) throw new APIError("UNAUTHORIZED", { message: "no owner" });
              const session = await ctx.context.internalAdapter.createSession(user.id);
              await setSessionCookie(ctx, { session, user });
              return ctx.json({ ok: true });
            },
          ),
        },
      },
    ],
  });
  return auth as unknown as Auth;
}
