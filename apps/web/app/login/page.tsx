import { SignInView } from "@/components/account/sign-in-view";
import { oidcSettings } from "@/lib/server/people/auth";

export const metadata = { title: "Sign in · Arbor" };
// the SSO button follows the running server's environment
export const dynamic = "force-dynamic";

type Query = Record<string, string | string[] | undefined>;

function one(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The SSO button's label, when ARBOR_OIDC_* configure a provider. */
function ssoLabel(env: Record<string, string | undefined> = process.env): string | undefined {
  try {
    return oidcSettings(env)?.name;
  } catch {
    return undefined; // half-configured: the server refuses to start and says why
  }
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  return (
    <SignInView
      next={one(query.next)}
      sso={ssoLabel()}
      ssoError={one(query.error)}
      resetToken={one(query.token)}
    />
  );
}
