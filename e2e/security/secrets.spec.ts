import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { errorEvents, Servers, summary, toolResults } from "./harness.js";

// Issue #9, findings 4 and 5: bash inherited the server's environment (printenv and
// /proc/$PPID/environ gave the provider key and the admin token, which then travelled in later
// model requests, GET /messages, the admin loops API and SQLite), and a session switched to
// another protocol sent the Anthropic key to that provider. Contract §5: tool processes get a
// scrubbed environment, secret values in tool output are redacted, keys are scoped per provider.

let servers: Servers;

test.beforeAll(async () => {
  servers = await Servers.start();
});

test.afterAll(async () => {
  await servers?.close();
});

function secretsIn(text: string): string[] {
  const found: string[] = [];
  if (text.includes(servers.providerKey)) found.push("the provider key");
  if (text.includes(servers.token)) found.push("ARBOR_TOKEN");
  return found;
}

/** Every file under the data directory (the SQLite database, its WAL and journal), as bytes. */
function dataFiles(dir: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stats = statSync(path);
    if (stats.isDirectory()) return dataFiles(path);
    return stats.isFile() ? [{ path, bytes: readFileSync(path) }] : [];
  });
}

const ENV_COMMAND =
  "printenv; cat /proc/$PPID/environ | tr '\\0' '\\n'; cat /proc/1/environ | tr '\\0' '\\n'";

test("bash reading its environment and its parents' gets no secret, and none is stored or sent", async () => {
  const api = servers.api;
  await servers.resetFake();
  await servers.script([
    {
      blocks: [
        { type: "toolCall", id: "toolu_env_1", name: "bash", arguments: { command: ENV_COMMAND } },
      ],
    },
    { blocks: [{ type: "text", text: "That is the environment." }] },
  ]);
  const id = await api.createSession({ approval_policy: { type: "auto_approve_all" } });
  const events = await api.send(id, { type: "text", text: "Show me the environment." });
  expect(errorEvents(events)).toEqual([]);

  const messages = await api.messages(id);
  const result = toolResults(messages).find((r) => r.tool_call_id === "toolu_env_1");
  expect(result, JSON.stringify(messages)).toBeDefined();
  // the command really ran and printed an environment
  expect(result?.text).toContain("PATH=");
  expect(secretsIn(result?.text ?? ""), "in the tool result").toEqual([]);
  expect(secretsIn(JSON.stringify(messages)), "in GET /messages").toEqual([]);

  const loops = await servers.raw
    .with({ authorization: `Bearer ${servers.token}` })
    .get(`/api/admin/sessions/${id}/loops`);
  expect(loops.status, loops.text).toBe(200);
  expect(loops.text).toContain("toolu_env_1");
  expect(secretsIn(loops.text), "in the admin loops API").toEqual([]);

  // the model saw the tool's output in its next request, and no secret in any request's body
  const requests = (await servers.fakeRequests()).filter(
    (r) => r.protocol === "anthropic-messages",
  );
  expect(requests.length).toBe(2);
  expect(JSON.stringify(requests[1]?.body)).toContain("toolu_env_1");
  for (const request of requests) {
    expect(secretsIn(JSON.stringify(request.body)), "in a model request's body").toEqual([]);
  }

  // nor in the store's bytes
  for (const file of dataFiles(servers.dataDir)) {
    const bytes = file.bytes;
    for (const value of [servers.providerKey, servers.token]) {
      expect(bytes.includes(Buffer.from(value)), `a secret in ${file.path}`).toBe(false);
    }
  }
});

test("a session switched to another protocol never sends the Anthropic key; without that provider's own key it fails naming it", async () => {
  const api = servers.api;
  await servers.resetFake();

  // google-gemini: GOOGLE_GENERATIVE_AI_BASE_URL points at the fake, no Google key is set
  const google = await api.createSession({});
  const toGoogle = await api.patch(`/api/sessions/${google}/config`, {
    model: { protocol: "google-gemini", model: "gemini-e2e" },
  });
  expect(toGoogle.status, toGoogle.text).toBe(200);
  const events = await api.send(google, { type: "text", text: "Hello over another protocol." });
  const errors = errorEvents(events);
  expect(errors.length, summary(events)).toBeGreaterThan(0);
  expect(errors.map((e) => e.message).join("\n")).toContain("GOOGLE_GENERATIVE_AI_API_KEY");

  // openai-chat: OPENAI_BASE_URL without OPENAI_API_KEY is a keyless OpenAI-compatible server
  // (a local one, as people run them): it is asked with no key at all
  const openai = await api.createSession({});
  const toOpenai = await api.patch(`/api/sessions/${openai}/config`, {
    model: { protocol: "openai-chat", model: "gpt-e2e" },
  });
  expect(toOpenai.status, toOpenai.text).toBe(200);
  await api.send(openai, { type: "text", text: "Hello over a compatible server." });

  const recorded = await servers.fakeRequests();
  expect(recorded.length).toBeGreaterThan(0);
  for (const request of recorded) {
    expect(JSON.stringify(request), `${request.protocol} ${request.path}`).not.toContain(
      servers.providerKey,
    );
  }
});
