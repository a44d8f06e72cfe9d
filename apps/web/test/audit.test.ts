import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AuditEntry,
  AuditListResponseSchema,
  AuditVerifyResponseSchema,
  WorkspaceTrustResponseSchema,
} from "@arbor/core";
import { petstoreSpecPath } from "@arbor/core/testing";
import { type PgCluster, pgClusterUnavailableReason, startPgCluster } from "@arbor/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as auditRoute from "@/app/api/audit/route";
import * as verifyRoute from "@/app/api/audit/verify/route";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as configRoute from "@/app/api/sessions/[id]/config/route";
import * as trustRoute from "@/app/api/workspace/trust/route";
import {
  createSessionId,
  finalState,
  jsonRequest,
  params,
  readSse,
  sendText,
  startTestServer,
  TEST_TOKEN,
  type TestServer,
} from "./support";

// The audit log over the route handlers (docs/audit.md): what the routes record, GET /api/audit's
// paging and filters, and GET /api/audit/verify finding a row tampered with directly in the
// database, on the default SQLite file and on a real PostgreSQL.

// the install token is the owner's credential (docs/accounts.md): the tests' requests carry it
const signedIn = { ARBOR_TOKEN: TEST_TOKEN };

async function list(query = ""): Promise<{ entries: AuditEntry[]; next_cursor: string | null }> {
  const response = await auditRoute.GET(jsonRequest("GET", `/api/audit${query}`), params({}));
  expect(response.status).toBe(200);
  return AuditListResponseSchema.parse(await response.json());
}

async function verify() {
  const response = await verifyRoute.GET(jsonRequest("GET", "/api/audit/verify"), params({}));
  expect(response.status).toBe(200);
  return AuditVerifyResponseSchema.parse(await response.json());
}

/** Two read_file calls wait for a person; the first is approved, the second denied. */
async function approveAndDeny(server: TestServer): Promise<string> {
  server.llm.enqueue(
    {
      blocks: [
        { type: "toolCall", id: "call_a", name: "read_file", arguments: { path: "notes.txt" } },
        { type: "toolCall", id: "call_b", name: "list_files", arguments: {} },
      ],
    },
    { blocks: [{ type: "text", text: "Done." }] },
  );
  const id = await createSessionId({
    config: { approval_policy: { type: "manual" }, approve_read_only: false },
  });
  expect(finalState(await sendText(id, "read the notes"))).toBe("AwaitingToolApproval");
  const response = await approvals.POST(
    jsonRequest("POST", `/api/sessions/${id}/approvals`, {
      decisions: [
        { tool_call_id: "call_a", decision: "approve" },
        { tool_call_id: "call_b", decision: "deny" },
      ],
    }),
    params({ id }),
  );
  expect(response.status).toBe(200);
  expect(finalState(await readSse(response))).toBe("Idle");
  return id;
}

function describeAuditRoutes(provider: "sqlite" | "postgresql", databaseUrl: () => string) {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      ...signedIn,
      ...(provider === "postgresql" ? { DATABASE_URL: databaseUrl() } : {}),
    });
    expect(server.runtime.database.provider).toBe(provider);
  });
  afterAll(async () => {
    await server.close();
    await server.runtime.close();
  });

  it("records each decided tool call with the person, the session and the tool", async () => {
    const id = await approveAndDeny(server);
    const { entries } = await list(`?actor=owner&limit=10`);
    const decided = entries.filter((e) => e.target === `session:${id}`);
    expect(decided.map((e) => [e.action, e.detail])).toEqual([
      ["tool_denied", { tool_call_id: "call_b", tool: "list_files" }],
      ["tool_approved", { tool_call_id: "call_a", tool: "read_file" }],
    ]);
    expect(decided[0]).toMatchObject({ actor_id: "owner", actor_name: "Owner" });
  });

  it("still records a decision when the client drops the answer before reading it", async () => {
    server.llm.enqueue(
      { blocks: [{ type: "toolCall", id: "call_c", name: "list_files", arguments: {} }] },
      { blocks: [{ type: "text", text: "Done." }] },
    );
    const id = await createSessionId({
      config: { approval_policy: { type: "manual" }, approve_read_only: false },
    });
    expect(finalState(await sendText(id, "list"))).toBe("AwaitingToolApproval");
    const response = await approvals.POST(
      jsonRequest("POST", `/api/sessions/${id}/approvals`, {
        decisions: [{ tool_call_id: "call_c", decision: "approve" }],
      }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    await response.body?.cancel();
    const deadline = Date.now() + 10_000;
    let rows: AuditEntry[] = [];
    while (rows.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = (await list("?action=tool_approved&limit=50")).entries.filter(
        (e) => e.target === `session:${id}`,
      );
    }
    expect(rows.map((e) => e.detail)).toEqual([{ tool_call_id: "call_c", tool: "list_files" }]);
  });

  it("records which config fields a PATCH changed", async () => {
    const id = await createSessionId();
    const response = await configRoute.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, {
        system_prompt: "Be brief.",
        agent_mode: "plan",
      }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    const { entries } = await list("?action=session_config_changed&limit=1");
    expect(entries[0]).toMatchObject({
      target: `session:${id}`,
      detail: { fields: ["agent_mode", "system_prompt"] },
    });
  });

  it("answers 403 to a member and to a token below admin scope; an admin's admin token reads", async () => {
    // a member with a personal token of their own (as Settings › Tokens makes one)
    const secret = `member-token-${randomUUID()}`;
    const userId = `u-${randomUUID()}`;
    await server.runtime.database.client.user.create({
      data: { id: userId, name: "Ben", email: `${userId}@example.test`, role: "member" },
    });
    await server.runtime.people.store.createToken({
      userId,
      name: "ci",
      scope: "write",
      hash: createHash("sha256").update(secret).digest("hex"),
      prefix: secret.slice(0, 6),
      expiresAt: null,
    });
    const asBen = (method: string, url: string) => {
      const request = jsonRequest(method, url);
      request.headers.set("authorization", `Bearer ${secret}`);
      return request;
    };
    for (const [route, url] of [
      [auditRoute, "/api/audit"],
      [verifyRoute, "/api/audit/verify"],
    ] as const) {
      const refused = await route.GET(asBen("GET", url), params({}));
      expect(refused.status, url).toBe(403);
      expect(await refused.json()).toMatchObject({ error: "forbidden" });
    }
    // made an admin, the same person reads it
    await server.runtime.people.store.setRole(userId, "admin");
    const scoped = await auditRoute.GET(asBen("GET", "/api/audit"), params({}));
    // a write token is below audit.read's scope (admin): still refused
    expect(scoped.status).toBe(403);
    const adminSecret = `admin-token-${randomUUID()}`;
    await server.runtime.people.store.createToken({
      userId,
      name: "admin",
      scope: "admin",
      hash: createHash("sha256").update(adminSecret).digest("hex"),
      prefix: adminSecret.slice(0, 6),
      expiresAt: null,
    });
    const asAdmin = jsonRequest("GET", "/api/audit/verify");
    asAdmin.headers.set("authorization", `Bearer ${adminSecret}`);
    const allowed = await verifyRoute.GET(asAdmin, params({}));
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toMatchObject({ ok: true });
  });

  it("pages newest first by cursor and answers 400 naming a bad parameter", async () => {
    const all = await list("?limit=500");
    expect(all.entries.length).toBeGreaterThanOrEqual(3);
    const first = await list("?limit=2");
    expect(first.entries.map((e) => e.sequence)).toEqual(
      all.entries.slice(0, 2).map((e) => e.sequence),
    );
    const second = await list(`?limit=2&cursor=${first.next_cursor}`);
    expect(second.entries.map((e) => e.sequence)).toEqual(
      all.entries.slice(2, 4).map((e) => e.sequence),
    );
    const future = await list(`?since=${encodeURIComponent("2999-01-01T00:00:00Z")}`);
    expect(future).toEqual({ entries: [], next_cursor: null });
    for (const [query, field] of [
      ["?limit=0", "limit"],
      ["?limit=x", "limit"],
      ["?cursor=abc", "cursor"],
      ["?action=rm_rf", "action"],
      ["?since=yesterday", "since"],
      ["?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", "until"],
    ] as const) {
      const response = await auditRoute.GET(jsonRequest("GET", `/api/audit${query}`), params({}));
      expect(response.status, query).toBe(400);
      const body = (await response.json()) as { error: string; fields: Array<{ field: string }> };
      expect(body.error).toBe("invalid_request");
      expect(body.fields.map((f) => f.field)).toEqual([field]);
    }
  });

  it("verify holds until a row's detail is edited in the database, and reports a deleted row", async () => {
    const before = await verify();
    expect(before).toMatchObject({ ok: true });
    const rows = before.rows;
    const client = server.runtime.database.client;
    await client.$executeRawUnsafe(
      `UPDATE audit_log SET detail = '{"tool_call_id":"call_a","tool":"ls"}' WHERE sequence = 1`,
    );
    expect(await verify()).toMatchObject({
      ok: false,
      rows,
      first_bad: { sequence: 1, reason: "hash_mismatch" },
    });
    await client.$executeRawUnsafe("DELETE FROM audit_log WHERE sequence = 1");
    expect(await verify()).toMatchObject({
      ok: false,
      rows: rows - 1,
      first_bad: { sequence: 2, reason: "gap" },
    });
  });
}

describe("the audit routes on SQLite", () => describeAuditRoutes("sqlite", () => ""));

const pgMissing = pgClusterUnavailableReason();
describe.skipIf(pgMissing !== undefined && process.env.ARBOR_TEST_PG === "skip")(
  "the audit routes on PostgreSQL",
  () => {
    let cluster: PgCluster;
    beforeAll(async () => {
      cluster = await startPgCluster();
    }, 60_000);
    afterAll(() => cluster?.stop());
    describeAuditRoutes("postgresql", () => cluster.url);
  },
);

describe("workspace trust and loaded configs", () => {
  let server: TestServer;
  beforeAll(async () => {
    const workspace = mkdtempSync(join(tmpdir(), "arbor-web-audit-"));
    mkdirSync(join(workspace, ".arbor"));
    writeFileSync(join(workspace, "petstore.yaml"), readFileSync(petstoreSpecPath()));
    writeFileSync(
      join(workspace, ".arbor", "openapi.json"),
      JSON.stringify([{ spec: "petstore.yaml", base_url: "http://127.0.0.1:9" }]),
    );
    // the user's own MCP config, outside the workspace: its server starts without trust
    const own = join(mkdtempSync(join(tmpdir(), "arbor-web-audit-mcp-")), "mcp.json");
    writeFileSync(
      own,
      JSON.stringify({
        mcpServers: { everything: { type: "http", url: "http://127.0.0.1:9/mcp" } },
      }),
    );
    server = await startTestServer({
      ...signedIn,
      WORKSPACE_DIR: workspace,
      ARBOR_MCP_CONFIG: own,
      ARBOR_OPENAPI_ALLOW_LOOPBACK: "1",
    });
  });
  afterAll(async () => {
    await server.close();
    await server.runtime.close();
  });

  it("records trusting and revoking with the definition, and the spec and server loaded by the system", async () => {
    const listed = await trustRoute.GET(jsonRequest("GET", "/api/workspace/trust"), params({}));
    const { definitions } = WorkspaceTrustResponseSchema.parse(await listed.json());
    const spec = definitions.find((d) => d.name === "petstore.yaml");
    expect(spec).toBeDefined();
    const { file, name, hash } = spec!;
    const trusted = await trustRoute.POST(
      jsonRequest("POST", "/api/workspace/trust", { file, name, hash }),
      params({}),
    );
    expect(trusted.status).toBe(200);
    await server.runtime.openapi.settled();
    const revoked = await trustRoute.DELETE(
      jsonRequest("DELETE", "/api/workspace/trust", { file, name }),
      params({}),
    );
    expect(revoked.status).toBe(200);

    const { entries } = await list("?limit=50");
    const target = `definition:${file}#${name}`;
    expect(entries.find((e) => e.action === "workspace_trusted")).toMatchObject({
      target,
      actor_id: "owner",
      detail: { kind: "openapi_spec", hash },
    });
    expect(entries.find((e) => e.action === "workspace_trust_revoked")).toMatchObject({ target });
    expect(entries.find((e) => e.action === "openapi_config_loaded")).toMatchObject({
      target: "openapi_spec:petstore.yaml",
      actor_id: null,
      address: null,
      detail: { hash, operations: expect.any(Number) },
    });
    expect(entries.find((e) => e.action === "mcp_config_loaded")).toMatchObject({
      target: "mcp_server:everything",
      actor_id: null,
      detail: { transport: "http", file: expect.stringContaining("mcp.json") },
    });
    expect(await verify()).toMatchObject({ ok: true });
  });

  it("answers the person's action when the audit row cannot be written, and logs the failure", async () => {
    await server.runtime.database.client.$executeRawUnsafe("DROP TABLE audit_log");
    const id = await createSessionId();
    const response = await configRoute.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, { system_prompt: "Still saved." }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    expect(server.logs).toContainEqual(
      expect.objectContaining({
        level: "error",
        message: "audit write failed",
        fields: expect.objectContaining({
          action: "session_config_changed",
          target: `session:${id}`,
          actor: "owner",
        }),
      }),
    );
  });
});
