import { handle } from "@/lib/server/http";
import { signInRoute } from "@/lib/server/people/sign-in";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** better-auth's endpoints (sign-in, sign-out, passkeys, SSO callbacks): docs/accounts.md. */
export const GET = handle("GET /api/auth/{path}", (request) => signInRoute(request), {
  signIn: true,
});

export const POST = handle("POST /api/auth/{path}", (request) => signInRoute(request), {
  signIn: true,
});
