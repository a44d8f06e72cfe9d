// The little of panva's oidc-provider (which ships no types) that oidc-issuer.ts uses.
declare module "oidc-provider" {
  import type { Server } from "node:http";

  export interface ClaimsAccount {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host?: string): Server;
  }
}
