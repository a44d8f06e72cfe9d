import { SharedBranchView } from "@/components/chat/shared-branch-view";

// A read-only link's page (docs/sharing.md): the branch as it is now, and "Fork into my
// sessions". Only signed-in people reach it (the proxy sends others to /login first); the
// token is checked by GET /api/links/{token}, which answers 404 once it is revoked or expired.
export const dynamic = "force-dynamic";

interface SharePageProps {
  params: Promise<{ token: string }>;
}

export default async function SharePage({ params }: SharePageProps) {
  const { token } = await params;
  return <SharedBranchView token={token} />;
}
