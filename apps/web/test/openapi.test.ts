import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MessagesResponseSchema,
  OpenApiSpecsResponseSchema,
  SettingsResponseSchema,
  WorkspaceTrustResponseSchema,
} from "@arbor/core";
import { type PetstoreServer, petstoreSpecPath, startPetstoreServer } from "@arbor/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as specs from "@/app/api/openapi/specs/route";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as settings from "@/app/api/settings/route";
import * as trustRoute from "@/app/api/workspace/trust/route";
import {
  createSessionId,
  finalState,
  jsonRequest,
  params,
  readSse,
  startTestServer,
  type TestServer,
} from "./support";

// Issue #14, OpenAPI tools over the route handlers: the Swagger Petstore spec (the fixture) in
// the workspace's .arbor/openapi.json, served by a local Petstore that wants an API key, with the
// fake LLM server as the model asking for a Petstore tool.

const KEY = "petstore-route-key-7c3e91";
let petstore: PetstoreServer;
let server: TestServer;

beforeAll(async () => {
  petstore = await startPetstoreServer({ auth: { header: "api_key", value: KEY } });
  const workspace = mkdtempSync(join(tmpdir(), "arbor-web-openapi-"));
  mkdirSync(join(workspace, ".arbor"));
  writeFileSync(join(workspace, "petstore.yaml"), readFileSync(petstoreSpecPath()));
  writeFileSync(
    join(workspace, ".arbor", "openapi.json"),
    JSON.stringify([
      {
        spec: "petstore.yaml",
        base_url: petstore.baseUrl,
        auth: { type: "api_key", env: "PETSTORE_CREDENTIAL" },
        filter: { tags: ["pet", "store"] },
      },
      { spec: "missing.yaml" },
      { spec: "petstore.yaml", auth: { type: "bearer" } },
    ]),
  );
  server = await startTestServer({
    WORKSPACE_DIR: workspace,
    PETSTORE_CREDENTIAL: KEY,
    // even named here, the credential's variable never reaches a tool process
    ARBOR_TOOL_ENV: "PETSTORE_CREDENTIAL",
    // an OpenAPI credential must be allowed by name; the Petstore listens on 127.0.0.1
    ARBOR_OPENAPI_ENV: "PETSTORE_CREDENTIAL",
    ARBOR_OPENAPI_ALLOW_LOOPBACK: "1",
  });
  // the workspace's specs are read only once a person trusts them (issue #24)
  const pending = await trustRoute.GET(jsonRequest("GET", "/api/workspace/trust"), params({}));
  const { definitions } = WorkspaceTrustResponseSchema.parse(await pending.json());
  expect(definitions.map((d) => [d.name, d.status])).toEqual([
    ["petstore.yaml", "untrusted"],
    ["missing.yaml", "untrusted"],
  ]);
  for (const definition of definitions) {
    const { file, name, hash } = definition;
    const trusted = await trustRoute.POST(
      jsonRequest("POST", "/api/workspace/trust", { file, name, hash }),
      params({}),
    );
    expect(trusted.status).toBe(200);
  }
  await server.runtime.openapi.settled();
}, 30_000);
afterAll(async () => {
  await server.close();
  await petstore.close();
});

async function listSpecs() {
  const response = await specs.GET(jsonRequest("GET", "/api/openapi/specs"), params({}));
  expect(response.status).toBe(200);
  return OpenApiSpecsResponseSchema.parse(await response.json()).specs;
}

describe("GET /api/openapi/specs", () => {
  it("answers each spec's state, tools and credential variable; a broken entry with its reason", async () => {
    const list = await listSpecs();
    expect(list.map((s) => [s.spec, s.status])).toEqual([
      ["petstore.yaml", "loaded"],
      ["missing.yaml", "failed"],
      ["petstore.yaml", "failed"],
    ]);
    const [petstoreSpec, missing, invalid] = list;
    expect(petstoreSpec).toMatchObject({
      title: "Swagger Petstore",
      base_url: petstore.baseUrl,
      auth: { type: "api_key", env: "PETSTORE_CREDENTIAL", set: true },
    });
    // the filter keeps the pet and store operations (8 + 4), not the user ones
    expect(petstoreSpec?.tools).toHaveLength(12);
    expect(petstoreSpec?.tools).toContainEqual({
      name: "getPetById",
      method: "GET",
      path: "/pet/{petId}",
      description: expect.stringContaining("Returns a single pet"),
    });
    expect(missing?.error).toBeTruthy();
    expect(invalid?.error).toMatch(/^\[2\]\.auth\.env: /);
    expect(JSON.stringify(list)).not.toContain(KEY);
  });

  it("needs the token like every route", async () => {
    const response = await specs.GET(new Request("http://localhost/api/openapi/specs"), params({}));
    expect(response.status).toBe(401);
  });

  it("the credential's variable is not among the tool processes' variables", async () => {
    const response = await settings.GET(jsonRequest("GET", "/api/settings"), params({}));
    const answer = SettingsResponseSchema.parse(await response.json());
    expect(answer.tool_env).not.toContain("PETSTORE_CREDENTIAL");
  });
});

describe("a Petstore tool in a session", () => {
  it("is offered with its JSON Schema; the call waits for approval, then reaches the API with the key", async () => {
    server.llm.enqueue(
      {
        blocks: [{ type: "toolCall", id: "call_pet", name: "getPetById", arguments: { petId: 2 } }],
      },
      { blocks: [{ type: "text", text: "Pet 2 is kitty." }] },
    );
    const id = await createSessionId({
      config: { approval_policy: { type: "manual" }, approve_read_only: false },
    });
    const before = server.llm.requests.length;
    const first = await readSse(
      await messages.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages`, {
          session_id: id,
          payload: { type: "text", text: "what is pet 2?" },
        }),
        params({ id }),
      ),
    );
    expect(finalState(first)).toBe("AwaitingToolApproval");
    const waiting = first.filter((e) => e.event === "context_update").at(-1)?.data
      .current_state as { pending_requests: string[]; tool_names: string[] };
    expect(waiting.tool_names).toEqual(["getPetById"]);
    // nothing reached the API before the approval
    const petstoreCalls = petstore.requests.length;
    // the approval card's data: the method, the full URL and where the credential goes
    const stored = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const { messages: rows } = MessagesResponseSchema.parse(await stored.json());
    const request = rows.find((m) => m.body.message_type === "tool_request")?.body;
    expect(request?.message_type === "tool_request" && request.calls[0]?.preview).toEqual({
      kind: "http",
      method: "GET",
      url: `${petstore.baseUrl}/pet/2`,
      credential: {
        env: "PETSTORE_CREDENTIAL",
        placement: "header",
        name: "api_key",
        host: new URL(petstore.baseUrl).host,
      },
    });

    const offered =
      (
        server.llm.requests[before]?.body as {
          tools?: Array<{ name: string; input_schema: unknown }>;
        }
      )?.tools ?? [];
    expect(offered.find((t) => t.name === "getPetById")?.input_schema).toEqual({
      type: "object",
      properties: {
        petId: { type: "integer", format: "int64", description: "ID of pet to return" },
      },
      required: ["petId"],
    });
    expect(offered.map((t) => t.name)).not.toContain("loginUser");

    const second = await readSse(
      await approvals.POST(
        jsonRequest("POST", `/api/sessions/${id}/approvals`, {
          decisions: [{ tool_call_id: waiting.pending_requests[0], decision: "approve" }],
        }),
        params({ id }),
      ),
    );
    expect(finalState(second)).toBe("Idle");
    expect(petstore.requests.length).toBe(petstoreCalls + 1);
    expect(petstore.requests.at(-1)).toMatchObject({ method: "GET", url: "/v2/pet/2" });
    expect(petstore.requests.at(-1)?.headers.api_key).toBe(KEY);
    const toModel = JSON.stringify(server.llm.requests.at(-1)?.body);
    expect(toModel).toContain("call_pet");
    expect(toModel).toContain(`GET ${petstore.baseUrl}/pet/2 → 200`);
    expect(toModel).toContain('\\"name\\":\\"kitty\\"');
    expect(toModel).not.toContain(KEY);
  });

  it("a 404 from the API reaches the model as a failed tool result", async () => {
    server.llm.enqueue(
      {
        blocks: [
          { type: "toolCall", id: "call_gone", name: "getPetById", arguments: { petId: 4040 } },
        ],
      },
      { blocks: [{ type: "text", text: "No such pet." }] },
    );
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    const events = await readSse(
      await messages.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages`, {
          session_id: id,
          payload: { type: "text", text: "find pet 4040" },
        }),
        params({ id }),
      ),
    );
    expect(finalState(events)).toBe("Idle");
    const last = server.llm.requests.at(-1)?.body as {
      messages: Array<{ content: unknown }>;
    };
    const result = JSON.stringify(last.messages.at(-1)?.content);
    expect(result).toContain('"is_error":true');
    expect(result).toContain("→ 404");
    expect(result).toContain("Pet not found");
  });
});
