import { expect, test } from "@playwright/test";
import { type Answer, apiCatalog, type Client, fillPath, Servers } from "./harness.js";

// Issue #9, finding 1: no authentication on /api/sessions/**; issue #25: people. Every API route
// and page needs a signed-in person (a Bearer token for clients, the session cookie of a browser,
// which `/?token=` signs in as the owner); the admin routes answer the owner and admins; failures
// are rate-limited. The positive cases run first: the sweep of refusals counts as failed attempts.

let servers: Servers;
let sessionId = "";
let branchId = "";

test.beforeAll(async () => {
  servers = await Servers.start();
  const created = await servers.api.post("/api/sessions", { title: "auth" });
  expect(created.status, created.text).toBe(201);
  ({ session_id: sessionId, branch_id: branchId } = created.json as {
    session_id: string;
    branch_id: string;
  });
});

test.afterAll(async () => {
  await servers?.close();
});

const PAGES = ["/", "/sessions/{id}", "/admin", "/admin/sessions/{id}"];

function ids(): Record<string, string> {
  return { id: sessionId, branch_id: branchId, message_id: "m-1", merge_id: "merge-1" };
}

/** A body a route would take, so a 401 cannot be a validation answer in disguise. */
function bodyFor(schema: string | undefined): unknown {
  if (schema === undefined) return undefined;
  const bodies: Record<string, unknown> = {
    CreateSessionRequest: { title: "unauthenticated" },
    SendMessageRequest: {
      session_id: sessionId,
      payload: { type: "workflow", workflow: "bash", parameters: { command: "id" } },
    },
    EditMessageRequest: { text: "edited" },
    ApprovalsRequest: { decisions: [{ tool_call_id: "c-1", decision: "approve" }] },
    ApprovePlanRequest: { message_id: "m-1" },
    PatchConfigRequest: { approval_policy: { type: "auto_approve_all" } },
    CreateBranchRequest: { from_message_id: "m-1" },
    MergeRequest: { source_branch_id: branchId, target_branch_id: branchId, strategy: "append" },
    ResolveMergeRequest: { cancel: true },
  };
  return bodies[schema] ?? {};
}

function expectUnauthorizedJson(answer: Answer, what: string): void {
  expect(answer.status, `${what}: ${answer.text}`).toBe(401);
  expect((answer.json as { error?: string } | undefined)?.error, what).toBe("unauthorized");
  // the admin routes may name a realm of their own
  expect(answer.headers.get("www-authenticate") ?? "", what).toMatch(
    /^Bearer realm="arbor[\w-]*"$/,
  );
}

test("with the Bearer token the API answers", async () => {
  const list = await servers.api.get("/api/sessions");
  expect(list.status, list.text).toBe(200);
  expect((list.json as Array<{ id: string }>).map((s) => s.id)).toContain(sessionId);
  const detail = await servers.api.get(`/api/sessions/${sessionId}`);
  expect(detail.status).toBe(200);
});

test("/?token= answers 303 to the same URL without it and signs the owner in with an HttpOnly cookie that works", async () => {
  const traded = await servers.raw.get(
    `/sessions/${sessionId}?token=${encodeURIComponent(servers.token)}&view=full`,
  );
  expect(traded.status, traded.text).toBe(303);
  const location = new URL(traded.headers.get("location") ?? "", servers.url);
  expect(location.pathname).toBe(`/sessions/${sessionId}`);
  expect(location.searchParams.get("token")).toBeNull();
  expect(location.searchParams.get("view")).toBe("full");

  const cookies = traded.headers.getSetCookie();
  const session = cookies.find((c) => c.startsWith("arbor.session_token="));
  expect(session, cookies.join("\n")).toBeDefined();
  const [pair = "", ...attributes] = (session ?? "").split(";").map((part) => part.trim());
  // a session of its own each time, never derived from the token
  expect(pair).not.toContain(servers.token);
  const lower = attributes.map((a) => a.toLowerCase());
  expect(lower).toContain("httponly");
  expect(lower).toContain("samesite=lax");
  expect(lower).toContain("path=/");
  // plain http: no Secure attribute, or the browser would drop the cookie
  expect(lower).not.toContain("secure");

  const browser = servers.raw.with({ cookie: pair });
  const page = await browser.get(`/sessions/${sessionId}`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  const list = await browser.get("/api/sessions");
  expect(list.status, list.text).toBe(200);
  const me = await browser.get("/api/me");
  expect(me.json).toMatchObject({ role: "owner", via: "session" });
  // a second trade is a second session, not the same cookie
  const again = await servers.ownerCookie();
  expect(again).not.toBe(pair);

  // a wrong token sets nothing
  const wrong = await servers.raw.get("/?token=not-the-token");
  expect(wrong.status).toBe(401);
  expect(wrong.headers.getSetCookie().filter((c) => c.startsWith("arbor.session_token="))).toEqual(
    [],
  );
  // nor does a forged cookie open anything
  const forged = await servers.raw
    .with({ cookie: "arbor.session_token=forged.c2ln" })
    .get("/api/sessions");
  expectUnauthorizedJson(forged, "forged cookie");
});

test("the admin API answers the owner and admins; a member gets 403, on the pages too", async () => {
  const owner = await servers.api.get("/api/admin/sessions");
  expect(owner.status, owner.text).toBe(200);
  const loops = await servers.api.get(`/api/admin/sessions/${sessionId}/loops`);
  expect(loops.status, loops.text).toBe(200);

  const admin = await servers.invite("admin");
  expect((await admin.client.get("/api/admin/sessions")).status).toBe(200);
  const member = await servers.invite("member");
  const refused = await member.client.get("/api/admin/sessions");
  expect(refused.status, refused.text).toBe(403);
  expect((refused.json as { error?: string }).error).toBe("forbidden");
  // the member sees none of the owner's sessions
  expect((await member.client.get("/api/sessions")).json).toEqual([]);
  expect((await member.client.get(`/api/sessions/${sessionId}`)).status).toBe(404);

  // the admin pages take the browser's session cookie
  const adminPage = await servers.raw.with({ cookie: await servers.ownerCookie() }).get("/admin");
  expect(adminPage.status).toBe(200);
});

test("static build assets need no credential", async () => {
  const icon = await servers.raw.get("/icon.svg");
  expect(icon.status).toBe(200);
  const cookie = await servers.ownerCookie();
  const page = await servers.raw.with({ cookie }).get("/");
  expect(page.status).toBe(200);
  const asset = /\/_next\/static\/[^"'\s]+\.js/.exec(page.text)?.[0];
  expect(asset, "a script of the build in the page").toBeDefined();
  const script = await servers.raw.get(asset ?? "");
  expect(script.status).toBe(200);
});

test("without a credential every API route answers 401 and every page sends to sign-in", async () => {
  const sweep = async (client: Client, label: string): Promise<void> => {
    for (const endpoint of apiCatalog()) {
      // the sign-in endpoints are reached without a credential (docs/accounts.md)
      if (endpoint.path.startsWith("/api/auth/")) continue;
      const path = fillPath(endpoint.path, ids());
      const body = bodyFor(endpoint.body);
      const answer = await client.request(
        endpoint.method,
        path,
        body === undefined ? {} : { body },
      );
      const what = `${label} ${endpoint.method} ${path}`;
      if (answer.status === 429) {
        // the rate limiter may already count this client's refusals: still nothing served
        expect((answer.json as { error?: string }).error, what).toBe("too_many_requests");
        continue;
      }
      expectUnauthorizedJson(answer, what);
    }
    for (const page of PAGES) {
      const path = fillPath(page, ids());
      const answer = await client.get(path);
      const what = `${label} page ${path}`;
      if (answer.status === 429) continue;
      // the sign-in page, which comes back to this page after
      expect(answer.status, what).toBe(303);
      const location = new URL(answer.headers.get("location") ?? "", servers.url);
      expect(location.pathname, what).toBe("/login");
      expect(location.searchParams.get("next"), what).toBe(path);
      // a redirect, not the page: none of the app is served
      expect(answer.text, what).not.toContain("<script");
      expect(answer.text, what).not.toContain('"title"');
    }
  };
  await sweep(servers.raw, "no credential");
  await sweep(servers.raw.with({ authorization: "Bearer wrong-token" }), "wrong token");
  // and nothing the sweep sent was carried out
  const list = await servers.api.get("/api/sessions");
  expect((list.json as unknown[]).length).toBe(1);
});

test.describe("rate limit", () => {
  let fresh: Servers;
  test.beforeAll(async () => {
    fresh = await Servers.start();
  });
  test.afterAll(async () => {
    await fresh?.close();
  });

  test("after 10 failed credentials within 60 s the client gets 429 with Retry-After", async () => {
    const wrong = fresh.raw.with({ authorization: "Bearer wrong-token" });
    for (let attempt = 1; attempt <= 10; attempt++) {
      expectUnauthorizedJson(await wrong.get("/api/sessions"), `attempt ${attempt}`);
    }
    const limited = await wrong.get("/api/sessions");
    expect(limited.status, limited.text).toBe(429);
    expect((limited.json as { error?: string }).error).toBe("too_many_requests");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });
});
