import { expect, test } from "@playwright/test";
import { apiCatalog, fieldsOf, fillPath, Servers } from "./harness.js";

// Issue #26, finding 2: `PATCH /api/sessions/{id}/config` with `{"folding":{"enabled":true}}`
// changed nothing, and unknown fields were stripped in silence on every body. Over HTTP against
// the production build: folding set by PATCH reaches the model's next request, and every route of
// the catalog answers an unknown field with a 400 naming it (nested fields: apps/web's
// strict-bodies test walks every nested object of every body).

let servers: Servers;

test.beforeAll(async () => {
  servers = await Servers.start();
});

test.afterAll(async () => {
  await servers?.close();
});

interface Detail {
  active_branch_id: string;
  config: { folding: { enabled: boolean; max_depth: number } };
}

test("PATCH /config turns folding on: the session says so and the model is offered branch", async () => {
  const api = servers.api;
  const id = await api.createSession({});
  const patched = await api.patch(`/api/sessions/${id}/config`, {
    folding: { enabled: true, max_depth: 2 },
  });
  expect(patched.status, patched.text).toBe(200);
  const detail = (await api.get(`/api/sessions/${id}`)).json as Detail;
  expect(detail.config.folding).toMatchObject({ enabled: true, max_depth: 2 });

  await servers.resetFake();
  await servers.script([{ blocks: [{ type: "text", text: "Folding is on." }] }]);
  await api.send(id, { type: "text", text: "Which tools do you have?" });
  const offered = (await servers.fakeRequests())
    .flatMap((r) => (r.body as { tools?: Array<{ name: string }> }).tools ?? [])
    .map((t) => t.name);
  expect(offered).toContain("branch");
});

test("a misspelt setting is a 400 naming it, and the config stays as it was", async () => {
  const api = servers.api;
  const id = await api.createSession({});
  const refused = await api.patch(`/api/sessions/${id}/config`, {
    agent_mode: "plan",
    folding: { enabeld: true },
  });
  expect(refused.status, refused.text).toBe(400);
  expect(fieldsOf(refused)).toEqual(["folding.enabeld"]);
  const detail = (await api.get(`/api/sessions/${id}`)).json as Detail & {
    config: { agent_mode: string };
  };
  expect(detail.config.agent_mode).toBe("act");
  expect(detail.config.folding.enabled).toBe(false);
});

test("every route answers an unknown field with 400 naming it", async () => {
  const api = servers.api;
  const id = await api.createSession({});
  const detail = (await api.get(`/api/sessions/${id}`)).json as Detail;
  const ids: Record<string, string> = {
    id,
    branch_id: detail.active_branch_id,
    provider: "anthropic",
  };
  const routes = apiCatalog().filter(
    (e) => e.method !== "GET" && !e.path.startsWith("/api/auth/") && e.path !== "/api/mcp",
  );
  expect(routes.length).toBeGreaterThan(30);
  const wrong: string[] = [];
  for (const route of routes) {
    const answer = await api.request(route.method, fillPath(route.path, ids), {
      body: { unknown_setting: true },
    });
    if (answer.status !== 400 || !fieldsOf(answer).includes("unknown_setting")) {
      wrong.push(`${route.method} ${route.path}: ${answer.status} ${answer.text.slice(0, 200)}`);
    }
  }
  expect(wrong).toEqual([]);
});
