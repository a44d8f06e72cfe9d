import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseRequest } from "@arbor/core";
import { describe, expect, it } from "vitest";
import * as config from "@/app/api/sessions/[id]/config/route";
import * as session from "@/app/api/sessions/[id]/route";
import { ENDPOINTS, type Endpoint, routeFileOf } from "@/lib/api/endpoints";
import { createSessionId, jsonRequest, params, sendText, useTestServer } from "./support";

// Issue #26, finding 2: settings were accepted and dropped. Every body is strict: a field the
// server does not know, at the top or nested, is a 400 naming it, and nothing happens. The walk
// covers every route of the endpoint catalog that takes a body (and those that take none), so a
// new route is covered, or this test fails asking for its body.

const server = useTestServer();
const APP_DIR = fileURLToPath(new URL("..", import.meta.url));

type RouteModule = Record<string, (request: Request, context: unknown) => Promise<Response>>;

/** The ids the paths need: one session with a message, its branch, a person. */
interface Fixture {
  id: string;
  branchId: string;
  messageId: string;
  personId: string;
}

/**
 * One valid body per route, as the UI (or an API client) sends it, holding every kind of nested
 * object the route takes, and the paths in it that are records (the client's own keys).
 */
const BODIES: Record<
  string,
  (f: Fixture) => { body: Record<string, unknown>; records?: string[] }
> = {
  "POST /api/sessions": () => ({
    body: {
      title: "Strict",
      config: {
        agent_mode: "act",
        approval_policy: { type: "white_list", tools: ["read_file"] },
        approvers: "owner",
        optimization: {
          strategy: { type: "recent_n", n: 5 },
          trigger_ratio: 0.8,
          summary_model: { protocol: "offline", model: "extractive" },
        },
        model: { protocol: "anthropic-messages", model: "claude-sonnet-4-5" },
        folding: { enabled: true },
        approve_read_only: false,
        allow_rules: ["Bash(npm test:*)"],
      },
    },
  }),
  "POST /api/sessions/import": () => ({
    body: {
      format: "arbor-session",
      version: 1,
      session: { id: "old", title: "Imported", config: { system_prompt: "p" } },
      messages: [
        {
          id: "m1",
          session_id: "old",
          role: "user",
          status: "complete",
          created_at: "2026-01-01T00:00:00.000Z",
          body: { message_type: "text", text: "hi" },
          meta: { pipeline: { processors: [{ processor: "file_reference", ms: 1 }] } },
          client_metadata: { mine: { any: 1 } },
        },
      ],
    },
    records: ["messages.0.client_metadata"],
  }),
  "PATCH /api/sessions/{id}": () => ({ body: { title: "Renamed" } }),
  "POST /api/sessions/{id}/messages": (f) => ({
    body: {
      session_id: f.id,
      payload: { type: "file_reference", path: "notes.txt", range: { start_line: 1, end_line: 2 } },
      client_metadata: { mine: { any: 1 } },
      delivery: "steer",
    },
    records: ["client_metadata"],
  }),
  "POST /api/sessions/{id}/messages/parallel": (f) => ({
    body: {
      session_id: f.id,
      payload: { type: "text", text: "two ways" },
      candidates: [
        { label: "A", model: { protocol: "anthropic-messages", model: "claude-sonnet-4-5" } },
        { label: "B", temperature: 1 },
      ],
      judge: { strategy: "pick_first" },
    },
  }),
  "POST /api/sessions/{id}/parallel/{group_id}/choose": () => ({ body: { candidate: 1 } }),
  "POST /api/sessions/{id}/messages/{message_id}/edit": () => ({ body: { text: "again" } }),
  "POST /api/sessions/{id}/approvals": () => ({
    body: {
      decisions: [
        { tool_call_id: "call-1", decision: "approve", remember: true },
        { tool_call_id: "call-2", decision: "approve", rule: "Bash(npm test:*)" },
        { tool_call_id: "call-3", decision: "deny", reason: "use pnpm" },
      ],
    },
  }),
  "POST /api/sessions/{id}/plan/approve": (f) => ({ body: { message_id: f.messageId } }),
  "PATCH /api/sessions/{id}/config": () => ({
    body: {
      approval_policy: { type: "limited_auto", max_depth: 2 },
      optimization: { strategy: { type: "intelligent", keep_recent: 4 } },
      model: { protocol: "offline", model: "arbor-offline" },
      folding: { enabled: true, max_depth: 2 },
      approve_read_only: true,
      allow_rules: ["Bash(npm test)", "Bash(git status:*)"],
    },
  }),
  "POST /api/sessions/{id}/branches": (f) => ({
    body: { from_message_id: f.messageId, name: "side" },
  }),
  "PATCH /api/sessions/{id}/branches/{branch_id}": () => ({
    body: { name: "main", pipeline: { processors: ["system_prompt"] } },
  }),
  "POST /api/sessions/{id}/merges": (f) => ({
    body: { source_branch_id: f.branchId, target_branch_id: "other", strategy: "append" },
  }),
  "POST /api/sessions/{id}/merges/{merge_id}/resolve": () => ({
    body: { resolutions: [{ conflict_id: "c1", resolution: "custom", text: "both" }] },
  }),
  "PUT /api/people/{person_id}/budget": () => ({ body: { monthly_tokens: 1000 } }),
  "POST /api/me/password": () => ({ body: { password: "a-long-password-1" } }),
  "PUT /api/settings/provider-keys/{provider}": () => ({
    body: { key: "sk-ant-strict-0123456789" },
  }),
  "POST /api/mcp/servers/{name}/prompts/{prompt}": () => ({
    body: { arguments: { topic: "x" } },
    records: ["arguments"],
  }),
  "POST /api/mcp/servers": () => ({ body: { name: "srv", command: "node", args: ["srv.js"] } }),
  "PATCH /api/mcp/servers/{name}": () => ({ body: { enabled: false } }),
  "PATCH /api/skills/{name}": () => ({ body: { enabled: false } }),
  "PATCH /api/agents/{name}": () => ({ body: { enabled: false } }),
  "POST /api/workspace/trust": () => ({
    body: { file: "mcp_servers.json", name: "srv", hash: "0".repeat(64) },
  }),
  "DELETE /api/workspace/trust": () => ({ body: { file: "mcp_servers.json", name: "srv" } }),
  "POST /api/sessions/{id}/shares": () => ({
    body: { email: "someone@people.test", role: "viewer" },
  }),
  "POST /api/sessions/{id}/links": (f) => ({ body: { branch_id: f.branchId } }),
  "POST /api/me/tokens": () => ({ body: { name: "ci", scope: "read", expires_at: null } }),
  "PATCH /api/people/{person_id}": () => ({ body: { role: "viewer" } }),
  "POST /api/invitations": () => ({ body: { email: null, role: "member" } }),
};

const keyOf = (e: Endpoint) => `${e.method} ${e.path}`;
const withBody = ENDPOINTS.filter((e) => e.body !== undefined);
/** Routes that take no body; /api/auth (better-auth's) and /api/mcp (JSON-RPC) have their own. */
const withoutBody = ENDPOINTS.filter(
  (e) =>
    e.method !== "GET" && e.body === undefined && !("auth" in e.response || "mcp" in e.response),
);

/** The path of every object in a body, records and arrays' elements included ("" is the body). */
function objectPaths(value: unknown, path: string, records: ReadonlySet<string>): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => objectPaths(item, join2(path, String(i)), records));
  }
  if (typeof value !== "object" || value === null || records.has(path)) return [];
  return [
    path,
    ...Object.entries(value).flatMap(([key, inner]) =>
      objectPaths(inner, join2(path, key), records),
    ),
  ];
}

const join2 = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

/** `body` with `{unknown_setting: true}` added to the object at `path`. */
function withUnknown(body: Record<string, unknown>, path: string): Record<string, unknown> {
  const copy = structuredClone(body);
  let target: Record<string, unknown> = copy;
  for (const key of path === "" ? [] : path.split(".")) {
    target = target[key] as Record<string, unknown>;
  }
  target.unknown_setting = true;
  return copy;
}

async function fixture(): Promise<Fixture> {
  const id = await createSessionId();
  await sendText(id, "hello");
  const detail = (await (
    await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }))
  ).json()) as {
    active_branch_id: string;
    branches: Array<{ id: string; message_ids: string[] }>;
  };
  const branch = detail.branches.find((b) => b.id === detail.active_branch_id);
  const person = await server.runtime.people.store.createPerson({
    name: "Someone",
    email: "someone@people.test",
    role: "member",
  });
  return {
    id,
    branchId: detail.active_branch_id,
    messageId: branch?.message_ids[0] ?? "",
    personId: person.id,
  };
}

function urlOf(path: string, f: Fixture): { url: string; values: Record<string, string> } {
  const values: Record<string, string> = {
    id: f.id,
    branch_id: f.branchId,
    message_id: f.messageId,
    person_id: f.personId,
    merge_id: "merge-1",
    name: "srv",
    prompt: "p",
    user_id: f.personId,
    link_id: "link-1",
    token: "t".repeat(32),
    token_id: "token-1",
    invitation_id: "invitation-1",
    provider: "anthropic",
  };
  const url = path.replace(/\{([a-z_]+)\}/g, (_, name: string) => values[name] ?? name);
  return { url, values };
}

async function call(endpoint: Endpoint, f: Fixture, body: unknown): Promise<Response> {
  const module = (await import(
    /* @vite-ignore */ join(APP_DIR, routeFileOf(endpoint.path))
  )) as RouteModule;
  const handler = module[endpoint.method];
  if (handler === undefined) throw new Error(`${keyOf(endpoint)} has no handler`);
  const { url, values } = urlOf(endpoint.path, f);
  return handler(jsonRequest(endpoint.method, url, body), params(values));
}

async function expectNamed(response: Response, field: string, route: string): Promise<void> {
  const answer = (await response.json()) as { error?: string; fields?: Array<{ field: string }> };
  expect({ route, status: response.status, error: answer.error }).toEqual({
    route,
    status: 400,
    error: "invalid_request",
  });
  expect({ route, fields: answer.fields?.map((e) => e.field) }).toEqual({ route, fields: [field] });
}

describe("every JSON body is strict", () => {
  it("has a valid body here for each route of the catalog that takes one", () => {
    expect(withBody.map(keyOf).sort()).toEqual(Object.keys(BODIES).sort());
    const dummy: Fixture = { id: "s", branchId: "b", messageId: "m", personId: "p" };
    for (const endpoint of withBody) {
      const schema = endpoint.body?.schema;
      const make = BODIES[keyOf(endpoint)];
      if (schema === undefined || make === undefined) continue;
      const parsed = parseRequest(schema, make(dummy).body);
      expect({ route: keyOf(endpoint), parsed: parsed.ok ? "valid" : parsed.errors }).toEqual({
        route: keyOf(endpoint),
        parsed: "valid",
      });
    }
  });

  it("answers 400 naming an unknown field, at the top and in every nested object", async () => {
    const f = await fixture();
    let cases = 0;
    for (const endpoint of withBody) {
      const make = BODIES[keyOf(endpoint)];
      if (make === undefined) continue;
      const { body, records = [] } = make(f);
      for (const path of objectPaths(body, "", new Set(records))) {
        const response = await call(endpoint, f, withUnknown(body, path));
        await expectNamed(response, join2(path, "unknown_setting"), `${keyOf(endpoint)} @${path}`);
        cases += 1;
      }
    }
    expect(cases).toBeGreaterThanOrEqual(50);
  });

  it("answers 400 naming a field sent to a route that takes no body; {} and nothing pass the check", async () => {
    const f = await fixture();
    expect(withoutBody.length).toBeGreaterThan(10);
    for (const endpoint of withoutBody) {
      const response = await call(endpoint, f, { session_id: f.id });
      await expectNamed(response, "session_id", keyOf(endpoint));
    }
    const checkout = withoutBody.find((e) => e.path.endsWith("/checkout"));
    if (checkout === undefined) throw new Error("no checkout route");
    for (const body of [undefined, {}]) expect((await call(checkout, f, body)).status).toBe(200);
  });

  it("changes nothing when a body is refused", async () => {
    const f = await fixture();
    const response = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${f.id}/config`, {
        agent_mode: "plan",
        approval_policy: { type: "manual", tools: ["bash"] },
      }),
      params({ id: f.id }),
    );
    await expectNamed(response, "approval_policy.tools", "PATCH config");
    const detail = (await (
      await session.GET(jsonRequest("GET", `/api/sessions/${f.id}`), params({ id: f.id }))
    ).json()) as {
      config: { agent_mode: string };
    };
    expect(detail.config.agent_mode).toBe("act");
  });
});

/** The tools the model was offered in the last request it got. */
function lastTools(): string[] {
  const body = server.llm.requests.at(-1)?.body as { tools?: Array<{ name: string }> } | undefined;
  return body?.tools?.map((t) => t.name) ?? [];
}

describe("PATCH /api/sessions/{id}/config: folding", () => {
  it("turns folding on for the session: the answer and the session say so, and the next request offers branch", async () => {
    const id = await createSessionId();
    const response = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, { folding: { enabled: true } }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { config: { folding: Record<string, unknown> } };
    expect(answer.config.folding).toMatchObject({ enabled: true, default_budget: 8192 });
    const detail = (await (
      await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }))
    ).json()) as {
      config: { folding: { enabled: boolean } };
    };
    expect(detail.config.folding.enabled).toBe(true);

    server.llm.setScript([{ blocks: [{ type: "text", text: "ok" }] }]);
    await sendText(id, "fold if you like");
    expect(lastTools()).toContain("branch");

    // and off again: the next request no longer offers it
    const off = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, { folding: { enabled: false } }),
      params({ id }),
    );
    expect(off.status).toBe(200);
    server.llm.setScript([{ blocks: [{ type: "text", text: "ok" }] }]);
    await sendText(id, "and now?");
    expect(lastTools()).not.toContain("branch");
  });

  it("names a misspelt folding setting and leaves folding as it was", async () => {
    const id = await createSessionId();
    const response = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, { folding: { enable: true } }),
      params({ id }),
    );
    await expectNamed(response, "folding.enable", "PATCH config");
    const detail = (await (
      await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }))
    ).json()) as {
      config: { folding: { enabled: boolean } };
    };
    expect(detail.config.folding.enabled).toBe(false);
  });
});
