import type { Role } from "./actor";

// SSO roles (ARBOR_OIDC_ROLES_CLAIM, docs/accounts.md "SSO"): a claim of the provider's ID token
// or userinfo, a string or an array of strings, whose values name roles. The strongest value
// named wins. `owner` is never granted by SSO (there is one owner, made at first start), and an
// owner's role is never changed by it.

/** The roles SSO may grant, strongest first. */
export const SSO_ROLES = ["admin", "member", "viewer"] as const satisfies readonly Role[];
export type SsoRole = (typeof SSO_ROLES)[number];

/**
 * The role a claim's value names: the strongest of `admin`, `member`, `viewer` among its values
 * (case and surrounding spaces ignored; a string may hold several, split on spaces or commas);
 * undefined when the claim is absent or names none of them.
 */
export function roleFromClaim(value: unknown): SsoRole | undefined {
  const values =
    typeof value === "string"
      ? value.split(/[\s,]+/)
      : Array.isArray(value)
        ? value.filter((v): v is string => typeof v === "string")
        : [];
  const named = new Set(values.map((v) => v.trim().toLowerCase()));
  return SSO_ROLES.find((role) => named.has(role));
}

/**
 * The role a person signing in with SSO ends with: the claim's role when it names one, else the
 * role they have (a new account: its invitation's role or `member`). The owner stays owner.
 */
export function ssoRole(current: Role, claimed: SsoRole | undefined): Role {
  if (current === "owner" || claimed === undefined) return current;
  return claimed;
}
