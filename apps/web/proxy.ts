import { type NextRequest, NextResponse } from "next/server";
import { loginPage } from "@/lib/server/login-page";
import { gate, gateRequest, processGate } from "@/lib/server/request-gate";
import { contentSecurityPolicy, securityHeaders } from "@/lib/server/security-headers";

// Every request without a body passes here first (Next 16's proxy, on the Node.js runtime): the
// gate's verdict (lib/server/request-gate.ts) and the security headers with a fresh CSP nonce.
// Requests with a body skip it (see `config`) and meet the same gate in the route handlers'
// `handle` (lib/server/http.ts): Next holds a proxied request until its whole body has arrived,
// so a 200 MB upload could only be refused after it was read. Thin on purpose.

export function proxy(request: NextRequest): NextResponse {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const headers = securityHeaders(nonce, process.env.NODE_ENV === "development");
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === "development");
  const { config: settings, limiter } = processGate();
  const verdict = gate(gateRequest(request, request.nextUrl), settings, limiter);
  let response: NextResponse;
  switch (verdict.type) {
    case "pass": {
      // Next reads the nonce from the request's CSP; the layout reads x-nonce
      const forwarded = new Headers(request.headers);
      forwarded.set("content-security-policy", csp);
      forwarded.set("x-nonce", nonce);
      response = NextResponse.next({ request: { headers: forwarded } });
      break;
    }
    case "exchange":
      // Next wants an absolute Location; the host is one the gate has just allowed
      response = NextResponse.redirect(new URL(verdict.location, request.nextUrl), 303);
      response.headers.set("set-cookie", verdict.cookie);
      response.headers.set("cache-control", "no-store");
      break;
    case "refuse":
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
