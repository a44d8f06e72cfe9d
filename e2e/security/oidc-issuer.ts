import { once } from "node:events";
import type { Server } from "node:http";
import Provider, { type ClaimsAccount } from "oidc-provider";
import { freePort } from "../crash/app-server.js";

// A real OpenID provider for the SSO tests: panva's oidc-provider (OpenID Certified) in this
// process, with its development login and consent pages (any password signs in as the `login`
// typed). Accounts are looked up at every sign-in, so a test can change a person's claims between
// two sign-ins. It prints "Unsupported runtime" on Node 20 and works (shared/notes/toolchain.md).

export interface IssuerAccount {
  email: string;
  name: string;
  /** the roles claim's value (a string or an array), absent when undefined */
  roles?: string | string[];
}

export interface Issuer {
  url: string;
  clientId: string;
  clientSecret: string;
  /** accounts by login (what the dev login page's first field takes) */
  accounts: Map<string, IssuerAccount>;
  close(): Promise<void>;
}

/** Starts the provider on a free port with one confidential client redirecting to `arborUrl`. */
export async function startIssuer(options: {
  arborUrl: string;
  rolesClaim: string;
  accounts: Record<string, IssuerAccount>;
}): Promise<Issuer> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const clientId = "arbor-e2e";
  const clientSecret = `secret-${port}-${Math.random().toString(36).slice(2)}`;
  const accounts = new Map(Object.entries(options.accounts));
  const provider = new Provider(url, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${options.arborUrl}/api/auth/callback/oidc`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name", options.rolesClaim],
    },
    cookies: { keys: [`cookie-key-${clientSecret}`] },
    features: { devInteractions: { enabled: true } },
    findAccount: async (_ctx: unknown, sub: string): Promise<ClaimsAccount | undefined> => {
      const account = accounts.get(sub);
      if (account === undefined) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: account.email,
          email_verified: true,
          name: account.name,
          ...(account.roles === undefined ? {} : { [options.rolesClaim]: account.roles }),
        }),
      };
    },
  });
  const server: Server = provider.listen(port); // both stacks: "localhost" may resolve to ::1
  await once(server, "listening");
  return {
    url,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
