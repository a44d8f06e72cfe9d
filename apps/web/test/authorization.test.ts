import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeFileOf } from "@/lib/api/endpoints";
import type { Actor, Role, TokenScope } from "@/lib/server/people/actor";
import {
  type Action,
  authorize,
  INSTALL_ACTIONS,
  type Relation,
  SESSION_ACTIONS,
} from "@/lib/server/people/authorize";
import { ROUTE_ACTIONS } from "@/lib/server/people/route-actions";
import { personWithToken, startTestServer, TEST_TOKEN, type TestServer } from "./support";

// The written decision table (docs/accounts.md) against the server: every route × every role
// (and anonymous) over the route handlers, each request gated, authenticated and authorized as
// a real one is. The expectations are read from the document, not from authorize(): the code
// must do what the document says.

const APP_DIR = fileURLToPath(new URL("..", import.meta.url));
const DOC = readFileSync(
  fileURLToPath(new URL("../../../docs/accounts.md", import.meta.url)),
  "utf8",
);

/** The rows of the markdown table that follows `heading` (a line that starts with it). */
function tableAfter(heading: string): string[][] {
  const lines = DOC.split("\n");
  const start = lines.findIndex((line) => line.startsWith(heading));
  if (start === -1) throw new Error(`docs/accounts.md has no "${heading}"`);
  const rows: string[][] = [];
  let seen = false;
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("|")) {
      if (seen) break;
      continue;
    }
    seen = true;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/^`|`$/g, "")),
    );
  }
  return rows.slice(2); // the header and the --- line
}

const installTable = new Map(
  tableAfter("Install actions, by role").map(([action, ...cells]) => [action as string, cells]),
);
const sessionTable = new Map(
  tableAfter("Session actions, by the person's relation").map(([action, ...cells]) => [
    action as string,
    cells,
  ]),
);
const routeTable = new Map(
  tableAfter("Every route and its action").map(([route, action]) => [
    route as string,
    action as Action,
  ]),
);

const ROLE_COLUMNS: Role[] = ["owner", "admin", "member", "viewer"];
const RELATION_COLUMNS = ["owner", "collaborator", "viewer", "none", "admin"] as const;
type Column = (typeof RELATION_COLUMNS)[number];

function installAllowed(action: string, role: Role): boolean {
  const cells = installTable.get(action);
  if (cells === undefined) throw new Error(`no row for ${action}`);
  return cells[ROLE_COLUMNS.indexOf(role)] === "yes";
}

function sessionAllowed(action: string, column: Column): boolean {
  const cells = sessionTable.get(action);
  if (cells === undefined) throw new Error(`no row for ${action}`);
  return cells[RELATION_COLUMNS.indexOf(column)] === "yes";
}

function scopeOf(action: string): TokenScope {
  const cells = installTable.get(action) ?? sessionTable.get(action);
  return cells?.at(-1) as TokenScope;
}

describe("the decision table", () => {
  it("names every action and every route, as the code does", () => {
    expect([...installTable.keys()].sort()).toEqual([...INSTALL_ACTIONS].sort());
    expect([...sessionTable.keys()].sort()).toEqual([...SESSION_ACTIONS].sort());
    expect(Object.fromEntries(routeTable)).toEqual(ROUTE_ACTIONS);
  });

  it("is what authorize() decides, for every role, relation and token scope", () => {
    const actor = (role: Role, scope?: TokenScope): Actor => ({
      id: "p",
      name: "P",
      email: null,
      role,
      via: scope === undefined ? "session" : "token",
      ...(scope === undefined ? {} : { scope }),
      address: "127.0.0.1",
    });
    for (const action of INSTALL_ACTIONS) {
      for (const role of ROLE_COLUMNS) {
        expect({
          action,
          role,
          allowed: authorize(actor(role), action, { kind: "install" }).allowed,
        }).toEqual({
          action,
          role,
          allowed: installAllowed(action, role),
        });
      }
    }
    for (const action of SESSION_ACTIONS) {
      for (const column of RELATION_COLUMNS) {
        const role: Role = column === "admin" ? "admin" : "member";
        const relation: Relation = column === "admin" ? "none" : column;
        const decision = authorize(actor(role), action, {
          kind: "session",
          relation,
          approvers: "collaborators",
        });
        expect({ action, column, allowed: decision.allowed }).toEqual({
          action,
          column,
          allowed: sessionAllowed(action, column),
        });
        // a viewer of the install acts nowhere, whatever the relation
        const asViewer = authorize(actor("viewer"), action, {
          kind: "session",
          relation,
          approvers: "collaborators",
        });
        if (action !== "session.read") expect(asViewer.allowed).toBe(false);
      }
    }
    const ranks: TokenScope[] = ["read", "write", "admin"];
    for (const action of [...INSTALL_ACTIONS, ...SESSION_ACTIONS] as Action[]) {
      const needed = scopeOf(action);
      for (const scope of ranks) {
        const resource = (SESSION_ACTIONS as readonly string[]).includes(action)
          ? ({ kind: "session", relation: "owner", approvers: "collaborators" } as const)
          : ({ kind: "install" } as const);
        const decision = authorize(actor("owner", scope), action, resource);
        expect({ action, scope, allowed: decision.allowed }).toEqual({
          action,
          scope,
          allowed: ranks.indexOf(scope) >= ranks.indexOf(needed),
        });
      }
    }
  });

  it("narrows approvals by the session's approvers setting", () => {
    const member: Actor = {
      id: "m",
      name: "M",
      email: null,
      role: "member",
      via: "session",
      address: "x",
    };
    const on = (relation: Relation, approvers: "owner" | "collaborators") =>
      authorize(member, "session.approve", { kind: "session", relation, approvers }).allowed;
    expect(on("owner", "owner")).toBe(true);
    expect(on("collaborator", "owner")).toBe(false);
    expect(on("collaborator", "collaborators")).toBe(true);
    expect(on("viewer", "collaborators")).toBe(false);
  });
});

interface Caller {
  label: string;
  /** undefined: anonymous */
  authorization: string | undefined;
  role: Role | undefined;
  /** the column of the session table this caller falls in for the member's session */
  column: Column;
}

describe("every route × every role, over the route handlers", () => {
  let server: TestServer;
  let callers: Caller[];
  let member: Awaited<ReturnType<typeof personWithToken>>;

  beforeAll(async () => {
    server = await startTestServer();
    const { runtime } = server;
    member = await personWithToken(runtime, "member", { name: "Mia" });
    const admin = await personWithToken(runtime, "admin", { name: "Ada" });
    const viewer = await personWithToken(runtime, "viewer", { name: "Vic" });
    const collaborator = await personWithToken(runtime, "member", { name: "Cole" });
    const readerMember = await personWithToken(runtime, "member", { name: "Rita" });
    const sharedViewer = await personWithToken(runtime, "viewer", { name: "Val" });
    callers = [
      { label: "anonymous", authorization: undefined, role: undefined, column: "none" },
      {
        label: "owner (install token)",
        authorization: `Bearer ${TEST_TOKEN}`,
        role: "owner",
        column: "admin",
      },
      { label: "admin", authorization: admin.authorization, role: "admin", column: "admin" },
      {
        label: "member who made it",
        authorization: member.authorization,
        role: "member",
        column: "owner",
      },
      {
        label: "viewer, not shared",
        authorization: viewer.authorization,
        role: "viewer",
        column: "none",
      },
      {
        label: "collaborator",
        authorization: collaborator.authorization,
        role: "member",
        column: "collaborator",
      },
      {
        label: "member it is shared with to read",
        authorization: readerMember.authorization,
        role: "member",
        column: "viewer",
      },
      {
        label: "viewer it is shared with",
        authorization: sharedViewer.authorization,
        role: "viewer",
        column: "viewer",
      },
    ];
    (globalThis as { __shares?: unknown }).__shares = { collaborator, readerMember, sharedViewer };
  });
  afterAll(() => server.close());

  /** A session of the member's, shared as the callers need. */
  async function memberSession(): Promise<string> {
    const response = await call(
      "POST",
      "/api/sessions",
      "POST /api/sessions",
      member.authorization,
      {},
    );
    expect(response.status).toBe(201);
    const { session_id } = (await response.json()) as { session_id: string };
    const shares = (globalThis as { __shares?: Record<string, { id: string }> }).__shares ?? {};
    const { store } = server.runtime.people;
    await store.grant({
      sessionId: session_id,
      userId: shares.collaborator!.id,
      relation: "collaborator",
      grantedBy: member.id,
    });
    await store.grant({
      sessionId: session_id,
      userId: shares.readerMember!.id,
      relation: "viewer",
      grantedBy: member.id,
    });
    await store.grant({
      sessionId: session_id,
      userId: shares.sharedViewer!.id,
      relation: "viewer",
      grantedBy: member.id,
    });
    return session_id;
  }

  async function call(
    method: string,
    path: string,
    route: string,
    authorization: string | undefined,
    body?: unknown,
    params: Record<string, string> = {},
  ): Promise<Response> {
    const template = route.slice(route.indexOf(" ") + 1);
    const file = join(APP_DIR, routeFileOf(template));
    const module = (await import(/* @vite-ignore */ file)) as Record<
      string,
      (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>
    >;
    const handler = module[method];
    if (handler === undefined) throw new Error(`${file} has no ${method}`);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { host: "localhost" };
    if (authorization !== undefined) headers.authorization = authorization;
    if (text !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(text));
    }
    const controller = new AbortController();
    const response = await handler(
      new Request(`http://localhost${path}`, {
        method,
        headers,
        signal: controller.signal,
        ...(text === undefined ? {} : { body: text }),
      }),
      { params: Promise.resolve(params) },
    );
    // an event stream stays open: what matters here is its status
    if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
      controller.abort();
      await response.body?.cancel().catch(() => undefined);
    }
    return response;
  }

  it("answers each caller as the table says", { timeout: 120_000 }, async () => {
    const sessionId = await memberSession();
    const mismatches: string[] = [];
    for (const [route, action] of Object.entries(ROUTE_ACTIONS)) {
      const [method, template] = route.split(" ") as [string, string];
      const isSession = (SESSION_ACTIONS as readonly string[]).includes(action);
      for (const caller of callers) {
        // deleting takes a session of its own each time
        const id = route === "DELETE /api/sessions/{id}" ? await memberSession() : sessionId;
        const params: Record<string, string> = {
          id,
          branch_id: "no-such-branch",
          message_id: "no-such-message",
          merge_id: "no-such-merge",
          name: "no-such-server",
          prompt: "no-such-prompt",
          token_id: "no-such-token",
          person_id: "no-such-person",
          invitation_id: "no-such-invitation",
        };
        const path = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => params[name] ?? name);
        const body = method === "GET" ? undefined : {};
        const response = await call(method, path, route, caller.authorization, body, params);
        const status = response.status;
        const text = await response.text().catch(() => "");
        let expected: "allowed" | 401 | 403 | 404;
        if (caller.role === undefined) expected = 401;
        else if (!isSession) expected = installAllowed(action, caller.role) ? "allowed" : 403;
        else {
          const allowed =
            sessionAllowed(action, caller.column) &&
            (caller.role !== "viewer" || action === "session.read");
          expected = allowed ? "allowed" : caller.column === "none" ? 404 : 403;
        }
        const hiddenAnswer = status === 404 && text.includes(`session ${id} does not exist`);
        const ok =
          expected === "allowed"
            ? status !== 401 && status !== 403 && !hiddenAnswer
            : expected === 404
              ? hiddenAnswer
              : status === expected;
        if (!ok)
          mismatches.push(
            `${route} as ${caller.label}: expected ${expected}, got ${status} ${text.slice(0, 120)}`,
          );
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("holds a token to its scope over HTTP", async () => {
    const reader = await personWithToken(server.runtime, "member", { scope: "read" });
    const list = await call("GET", "/api/sessions", "GET /api/sessions", reader.authorization);
    expect(list.status).toBe(200);
    const create = await call(
      "POST",
      "/api/sessions",
      "POST /api/sessions",
      reader.authorization,
      {},
    );
    expect(create.status).toBe(403);
    expect(await create.json()).toMatchObject({
      error: "forbidden",
      message: expect.stringContaining("scope is read"),
    });
  });
});
