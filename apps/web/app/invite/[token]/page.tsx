import { InviteView } from "@/components/account/invite-view";
import { oidcSettings } from "@/lib/server/people/auth";

export const metadata = { title: "Join · Arbor" };
export const dynamic = "force-dynamic";

function ssoLabel(): string | undefined {
  try {
    return oidcSettings(process.env)?.name;
  } catch {
    return undefined;
  }
}

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <InviteView token={token} sso={ssoLabel()} />;
}
