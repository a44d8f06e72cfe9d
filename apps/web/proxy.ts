import { type NextRequest, NextResponse } from "next/server";
import { loginPage } from "@/lib/server/login-page";
import { admit, sharedRuntime } from "@/lib/server/people/admission";
import { isPublicPath, isSignInPath } from "@/lib/server/request-gate";
import { contentSecurityPolicy, securityHeaders } from "@/lib/server/security-headers";

// Every request without a body passes here first (Next 16's proxy, on the Node.js runtime): the
// gate's verdict (lib/server/request-gate.ts) and the security headers with a fresh CSP nonce.
// Requests with a body skip it (see `config`) and meet the same gate in the route handlers'
// `handle` (lib/server/http.ts): Next holds a proxied request until its whole body has arrived,
// so a 200 MB upload could only be refused after it was read. Thin on purpose.

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const headers = securityHeaders(nonce, process.env.NODE_ENV === "development");
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === "development");
  const { verdict, actor } = await admit(request, request.nextUrl);
  let response: NextResponse;
  switch (verdict.type) {
    case "pass": {
      // a page for signed-in people without one: the sign-in page
      if (
        actor === undefined &&
        !isSignInPath(request.nextUrl.pathname) &&
        !isPublicPath(request.nextUrl.pathname) &&
        !request.nextUrl.pathname.startsWith("/api/")
      ) {
        const login = new URL("/login", request.nextUrl);
        login.searchParams.set("next", request.nextUrl.pathname + request.nextUrl.search);
        response = NextResponse.redirect(login, 303);
        break;
      }
      // Next reads the nonce from the request's CSP; the layout reads x-nonce
      const forwarded = new Headers(request.headers);
      forwarded.set("content-security-policy", csp);
      forwarded.set("x-nonce", nonce);
      response = NextResponse.next({ request: { headers: forwarded } });
      break;
    }
    case "exchange": {
      // the install token signs the owner's browser in (a better-auth session); Next wants an
      // absolute Location, and the host is one the gate has just allowed
      const cookies = await exchange(verdict.token, request.nextUrl.origin);
      if (cookies === undefined) {
        response = new NextResponse(loginPage("that token is not (or no longer) valid"), {
          status: 401,
          headers: { "content-type": "text/html; charset=utf-8" },
        });
      } else {
        response = NextResponse.redirect(new URL(verdict.location, request.nextUrl), 303);
        for (const cookie of cookies) response.headers.append("set-cookie", cookie);
      }
      response.headers.set("cache-control", "no-store");
      break;
    }
    case "refuse":
      // a page without a credential: the sign-in page, which comes back here after
      if (verdict.loginPage && !request.nextUrl.searchParams.has("token")) {
        response = NextResponse.redirect(signInUrl(request), 303);
        response.headers.set("cache-control", "no-store");
        break;
      }
      response = verdict.loginPage
        ? new NextResponse(loginPage(verdict.message), {
            status: verdict.status,
            headers: { "content-type": "text/html; charset=utf-8" },
          })
        : NextResponse.json(
            { error: verdict.error, message: verdict.message },
            { status: verdict.status },
          );
      response.headers.set("cache-control", "no-store");
      for (const [name, value] of Object.entries(verdict.headers ?? {}))
        response.headers.set(name, value);
      break;
    default:
      return verdict satisfies never;
  }
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/** /login?next=<this page>: where an anonymous page request goes. */
function signInUrl(request: NextRequest): URL {
  const login = new URL("/login", request.nextUrl);
  login.searchParams.set("next", request.nextUrl.pathname + request.nextUrl.search);
  return login;
}

async function exchange(token: string, origin: string): Promise<string[] | undefined> {
  const runtime = await sharedRuntime();
  return runtime.people.exchangeInstallToken(token, origin);
}

export const config = {
  // every path (static files get the security headers too), except API requests with a body:
  // handle() gates those before the body is read (test/route-gate.test.ts holds every route to it)
  matcher: [
    "/((?!api/).*)",
    {
      source: "/:path*",
      missing: [
        { type: "header", key: "content-length" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
  ],
};
