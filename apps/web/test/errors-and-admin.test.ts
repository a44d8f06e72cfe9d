import { costOfUsage, type SessionSummary } from "@arbor/core";
import { afterEach, describe, expect, it } from "vitest";
import * as loops from "@/app/api/admin/sessions/[id]/loops/route";
import * as adminSessions from "@/app/api/admin/sessions/route";
import * as config from "@/app/api/sessions/[id]/config/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as sessions from "@/app/api/sessions/route";
import { createRedactingLogger } from "@/lib/server/logger";
import { setRuntime } from "@/lib/server/runtime";
import {
  authedRequest,
  jsonRequest,
  params,
  personWithToken,
  readSse,
  startTestServer,
  type TestServer,
} from "./support";

// Bad input answers 400 naming the field; the admin API needs its token; no error body ever
// carries a stack trace or an internal message; keys never reach the logs.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function createSession(): Promise<string> {
  const response = await sessions.POST(jsonRequest("POST", "/api/sessions", {}), params({}));
  return ((await response.json()) as { session_id: string }).session_id;
}

function postMessage(id: string, body: unknown): Promise<Response> {
  return messages.POST(jsonRequest("POST", `/api/sessions/${id}/messages`, body), params({ id }));
}

function expectNoStack(text: string): void {
  expect(text).not.toMatch(/\n\s+at |\.ts:\d+|node_modules|Error:/);
}

describe("invalid requests", () => {
  it("answers 400 naming the field for a bad payload", async () => {
    server = await startTestServer();
    const id = await createSession();
    const response = await postMessage(id, {
      session_id: id,
      payload: { type: "file_reference" },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; fields: Array<{ field: string }> };
    expect(body.error).toBe("invalid_request");
    expect(body.fields.map((f) => f.field)).toEqual(["payload.path"]);
  });

  it("answers 400 naming payload.type for an unknown payload type", async () => {
    server = await startTestServer();
    const id = await createSession();
    const response = await postMessage(id, { session_id: id, payload: { type: "telepathy" } });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { fields: Array<{ field: string; message: string }> };
    expect(body.fields).toEqual([
      { field: "payload.type", message: expect.stringContaining('Unknown type "telepathy"') },
    ]);
  });

  it("answers 400 naming payload.type for a tool_result payload (not part of the protocol, decision 0016)", async () => {
    server = await startTestServer();
    const id = await createSession();
    const response = await postMessage(id, {
      session_id: id,
      payload: { type: "tool_result", tool_call_id: "c1", content: "done" },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { fields: Array<{ field: string; message: string }> };
    expect(body.fields).toEqual([
      { field: "payload.type", message: expect.stringContaining('Unknown type "tool_result"') },
    ]);
  });

  it("answers 400 for malformed JSON, a mismatched session_id, and an empty config patch", async () => {
    server = await startTestServer();
    const id = await createSession();
    const malformed = await postMessage(id, "{not json");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ fields: [{ field: "(root)" }] });

    const mismatch = await postMessage(id, {
      session_id: "another",
      payload: { type: "text", text: "hi" },
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ fields: [{ field: "session_id" }] });

    const patch = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, {}),
      params({ id }),
    );
    expect(patch.status).toBe(400);
    const badMode = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, { agent_mode: "dream" }),
      params({ id }),
    );
    expect(badMode.status).toBe(400);
    expect(await badMode.json()).toMatchObject({ fields: [{ field: "agent_mode" }] });
  });

  it("answers 400 for an unknown ?view", async () => {
    server = await startTestServer();
    const id = await createSession();
    const response = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages?view=everything`),
      params({ id }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ fields: [{ field: "view" }] });
  });
});

describe("admin API", () => {
  it("answers the owner (the install token)", async () => {
    server = await startTestServer();
    const response = await adminSessions.GET(jsonRequest("GET", "/api/admin/sessions"), params({}));
    expect(response.status).toBe(200);
  });

  it("says cost_usd null (never 0) for a session whose model has no known prices", async () => {
    server = await startTestServer({ ARBOR_PROVIDER: "offline" });
    const id = await createSession();
    await readSse(await postMessage(id, { session_id: id, payload: { type: "text", text: "hi" } }));
    const response = await adminSessions.GET(jsonRequest("GET", "/api/admin/sessions"), params({}));
    const list = (await response.json()) as SessionSummary[];
    expect(list.map((s) => s.id)).toEqual([id]);
    expect(list[0]?.message_count).toBeGreaterThan(1);
    expect(list[0]?.usage).toMatchObject({ cost_usd: null, cost_complete: false });
  });

  it("answers owners and admins only", async () => {
    server = await startTestServer();
    const member = await personWithToken(server.runtime, "member");
    const admin = await personWithToken(server.runtime, "admin");
    server.llm.enqueue({ blocks: [{ type: "text", text: "hello" }] });
    const id = await createSession();
    await readSse(await postMessage(id, { session_id: id, payload: { type: "text", text: "hi" } }));

    const withHeader = (value?: string) =>
      authedRequest("http://localhost/api/admin/sessions", {
        headers: value === undefined ? {} : { authorization: value },
      });
    for (const header of ["Bearer wrong", "s3cret-admin"]) {
      const denied = await adminSessions.GET(withHeader(header), params({}));
      expect(denied.status).toBe(401);
      expect(await denied.json()).toMatchObject({ error: "unauthorized" });
    }
    const refused = await adminSessions.GET(withHeader(member.authorization), params({}));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: "forbidden" });
    const allowed = await adminSessions.GET(withHeader(admin.authorization), params({}));
    expect(allowed.status).toBe(200);
    const list = (await allowed.json()) as SessionSummary[];
    expect(list.map((s) => s.id)).toEqual([id]);
    expect(list[0]?.usage.totalTokens).toBeGreaterThan(0);
    // one answer from claude-sonnet-4-5 (the fake server reports the requested model): its cost
    const cost = costOfUsage(list[0]!.usage, "claude-sonnet-4-5");
    expect(cost).toBeGreaterThan(0);
    expect(list[0]?.usage.cost_usd).toBeCloseTo(cost!, 12);

    const loopsDenied = await loops.GET(
      authedRequest(`http://localhost/api/admin/sessions/${id}/loops`, {
        headers: { authorization: member.authorization },
      }),
      params({ id }),
    );
    expect(loopsDenied.status).toBe(403);
    const tree = await loops.GET(
      authedRequest(`http://localhost/api/admin/sessions/${id}/loops`, {
        headers: { authorization: admin.authorization },
      }),
      params({ id }),
    );
    expect(tree.status).toBe(200);
    const body = (await tree.json()) as {
      session_id: string;
      loops: Array<Record<string, unknown>>;
    };
    expect(body.session_id).toBe(id);
    expect(body.loops.length).toBeGreaterThan(0);
    // snake_case like every other route: loop_id, session_id, started_at, …
    expect(body.loops[0]).toMatchObject({
      loop_id: expect.any(String),
      session_id: id,
      status: "completed",
      started_at: expect.any(Number),
      child_loop_ids: [],
    });
    for (const key of [...Object.keys(body), ...Object.keys(body.loops[0]!)]) {
      expect(key).toMatch(/^[a-z_]+$/);
    }
  });
});

describe("failures", () => {
  it("answers 500 with a generic body and logs the cause when the runtime cannot start", async () => {
    const previous = { ...process.env };
    // an explicit provider without its key: modelConfigFromEnv refuses
    process.env.ARBOR_PROVIDER = "anthropic";
    delete process.env.ANTHROPIC_API_KEY;
    await setRuntime(undefined);
    try {
      const response = await sessions.GET(jsonRequest("GET", "/api/sessions"), params({}));
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ error: "internal", message: "internal server error" });
      expectNoStack(text);
    } finally {
      process.env = previous;
      await setRuntime(undefined);
    }
  });

  it("never puts a stack trace in an error body", async () => {
    server = await startTestServer();
    const id = await createSession();
    const bodies = [
      await postMessage(id, "{"),
      await postMessage("missing", { session_id: "missing", payload: { type: "text", text: "x" } }),
      await postMessage(id, { session_id: id, payload: { type: "nope" } }),
    ];
    for (const response of bodies) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expectNoStack(await response.text());
    }
  });
});

describe("logs", () => {
  it("scrub key values and secret-named fields", () => {
    const lines: string[] = [];
    const sink = {
      debug: () => {},
      info: (l: string) => lines.push(l),
      warn: (l: string) => lines.push(l),
      error: (l: string) => lines.push(l),
    };
    const logger = createRedactingLogger({
      env: {
        ANTHROPIC_API_KEY: "sk-ant-very-secret",
        DATABASE_URL: "postgres://arbor:db-password-1@localhost/arbor",
      },
      sink,
    });
    logger.error("provider said: invalid x-api-key sk-ant-very-secret", {
      error: new Error("auth failed for sk-ant-very-secret"),
      url: "postgres://arbor:db-password-1@localhost/arbor",
      apiKey: "anything",
      nested: { headers: { "x-api-key": "sk-ant-very-secret" } },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("sk-ant-very-secret");
    expect(lines[0]).not.toContain("db-password-1");
    expect(lines[0]).not.toContain("anything");
    expect(lines[0]).toContain("[redacted]");
  });

  it("the runtime's startup line names the model without its key", async () => {
    server = await startTestServer({ ANTHROPIC_API_KEY: "sk-ant-startup-secret" });
    const startup = server.logs.find((entry) => entry.message === "runtime started");
    expect(startup).toBeDefined();
    expect(JSON.stringify(server.logs)).not.toContain("sk-ant-startup-secret");
    expect(JSON.stringify(startup?.fields)).toContain('"apiKey":"set"');
  });
});
