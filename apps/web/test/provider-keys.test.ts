import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProviderKeysResponseSchema } from "@arbor/core";
import { afterEach, describe, expect, it } from "vitest";
import * as audit from "@/app/api/audit/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as sessions from "@/app/api/sessions/route";
import * as one from "@/app/api/settings/provider-keys/[provider]/route";
import * as list from "@/app/api/settings/provider-keys/route";
import {
  finalState,
  jsonRequest,
  params,
  personWithToken,
  readSse,
  startTestServer,
  type TestServer,
} from "./support";

// Issue #27 case 12: an admin keeps a provider key in Settings. Only the owner and admins reach
// the routes; the body is strict; the key is never answered, logged, audited or given to a tool;
// it is sealed at rest under the data directory's key file; the next model request uses it with
// no restart; the environment's variable works as before and the answer says which is in force.

const KEY = "sk-ant-kept-in-settings-0123456789wxyz";
const ENV_KEY = "sk-ant-from-the-environment-0123456789";
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server with no provider key in its environment unless `env` gives one (offline model). */
async function start(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-web-keys-"));
  server = await startTestServer({
    ARBOR_PROVIDER: "",
    ANTHROPIC_API_KEY: "",
    ARBOR_DATA_DIR: dataDir,
    ...env,
  });
  return server;
}

function request(method: string, path: string, body?: unknown, authorization?: string): Request {
  const made = jsonRequest(method, path, body);
  if (authorization !== undefined) made.headers.set("authorization", authorization);
  return made;
}

const anthropic = params({ provider: "anthropic" });

async function put(key: unknown, authorization?: string, provider = "anthropic") {
  return one.PUT(
    request("PUT", `/api/settings/provider-keys/${provider}`, { key }, authorization),
    params({ provider }),
  );
}

async function view(authorization?: string) {
  const response = await list.GET(
    request("GET", "/api/settings/provider-keys", undefined, authorization),
    params({}),
  );
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, body: ProviderKeysResponseSchema.parse(JSON.parse(text)) };
}

async function say(text: string) {
  const created = await sessions.POST(
    jsonRequest("POST", "/api/sessions", {
      config: { approval_policy: { type: "auto_approve_all" } },
    }),
    params({}),
  );
  const { session_id: id } = (await created.json()) as { session_id: string };
  const events = await readSse(
    await messages.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages`, {
        session_id: id,
        payload: { type: "text", text },
      }),
      params({ id }),
    ),
  );
  return { id, events };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("who may keep a provider key", () => {
  it("members and viewers are refused every route; an admin is not", async () => {
    const test = await start();
    for (const role of ["member", "viewer"] as const) {
      const { authorization } = await personWithToken(test.runtime, role);
      const got = await list.GET(
        request("GET", "/api/settings/provider-keys", undefined, authorization),
        params({}),
      );
      expect(got.status, role).toBe(403);
      expect((await put(KEY, authorization)).status, role).toBe(403);
      const removed = await one.DELETE(
        request("DELETE", "/api/settings/provider-keys/anthropic", undefined, authorization),
        anthropic,
      );
      expect(removed.status, role).toBe(403);
    }
    const admin = await personWithToken(test.runtime, "admin", { name: "Ada Admin" });
    expect((await put(KEY, admin.authorization)).status).toBe(200);
    const { body } = await view(admin.authorization);
    expect(body.providers.find((p) => p.provider === "anthropic")?.set_by?.name).toBe("Ada Admin");
  });
});

describe("the body is strict", () => {
  it("answers 400 naming the field: unknown, missing, malformed, or an unknown provider", async () => {
    await start();
    const named = async (response: Response) => {
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { fields: Array<{ field: string }> };
      return answer.fields.map((f) => f.field);
    };
    expect(
      await named(
        await one.PUT(
          request("PUT", "/api/settings/provider-keys/anthropic", { key: KEY, note: "x" }),
          anthropic,
        ),
      ),
    ).toEqual(["note"]);
    expect(
      await named(
        await one.PUT(request("PUT", "/api/settings/provider-keys/anthropic", {}), anthropic),
      ),
    ).toEqual(["key"]);
    expect(await named(await put("short"))).toEqual(["key"]);
    expect(await named(await put("sk-ant with a space 0123"))).toEqual(["key"]);
    expect(await named(await put("sk-ant-line\nbreak-0123456"))).toEqual(["key"]);
    const unknown = await named(await put(KEY, undefined, "mistral"));
    expect(unknown).toEqual(["provider"]);
    const responseText = JSON.stringify(unknown);
    expect(responseText).not.toContain(KEY);
  });
});

describe("a kept key", () => {
  it("is used by the next model request without a restart, and never answered, logged or audited", async () => {
    const test = await start();
    // no key anywhere: the offline model answers and the fake server is not asked
    expect((await view()).body.model.protocol).toBe("offline");
    await say("hello before");
    expect(test.llm.requests).toHaveLength(0);

    const kept = await put(KEY);
    const keptText = await kept.text();
    expect(kept.status).toBe(200);
    expect(keptText).not.toContain(KEY);
    const { text, body } = await view();
    expect(text).not.toContain(KEY);
    expect(body.model.protocol).toBe("anthropic-messages");
    expect(body.providers.find((p) => p.provider === "anthropic")).toMatchObject({
      source: "settings",
      environment: false,
      hint: "…wxyz",
      variable: "ANTHROPIC_API_KEY",
    });

    test.llm.enqueue({ blocks: [{ type: "text", text: "answered with the kept key" }] });
    const { events } = await say("hello after");
    expect(finalState(events)).toBe("Idle");
    expect(test.llm.requests.at(-1)?.headers["x-api-key"]).toBe(KEY);
    expect(JSON.stringify(events)).not.toContain(KEY);

    // the audit log has who kept which key, with its hint only
    const rows = await audit.GET(request("GET", "/api/audit?action=provider_key_set"), params({}));
    const auditText = await rows.text();
    expect(auditText).toContain("provider_key:anthropic");
    expect(auditText).toContain("…wxyz");
    expect(auditText).not.toContain(KEY);
    // nothing logged it (the test's logger keeps lines as written, before any redaction)
    expect(JSON.stringify(test.logs)).not.toContain(KEY);
    expect(JSON.stringify(test.logs)).toContain("provider key kept");

    // sealed at rest: the data directory's files hold no key; the key file is the owner's only
    const keyFile = join(test.runtime.dataDir, "provider-keys.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    for (const file of filesUnder(test.runtime.dataDir)) {
      expect(readFileSync(file).includes(Buffer.from(KEY)), file).toBe(false);
    }

    // removed: the offline model again, and an audit row
    const removed = await one.DELETE(
      request("DELETE", "/api/settings/provider-keys/anthropic"),
      anthropic,
    );
    expect(removed.status).toBe(200);
    expect((await view()).body.model.protocol).toBe("offline");
    const again = await one.DELETE(
      request("DELETE", "/api/settings/provider-keys/anthropic"),
      anthropic,
    );
    expect(again.status).toBe(404);
    const removals = await audit.GET(
      request("GET", "/api/audit?action=provider_key_removed"),
      params({}),
    );
    expect(await removals.text()).toContain("provider_key:anthropic");
  });

  it("is in no tool process's environment, and tool output is redacted of it", async () => {
    const test = await start();
    expect((await put(KEY)).status).toBe(200);
    writeFileSync(join(test.workspace, "pasted.txt"), `someone pasted ${KEY} here\n`);
    test.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "call_env",
            name: "bash",
            arguments: {
              command: `env; echo "count=$(env | grep -c -- '${KEY.slice(0, 20)}')"; cat pasted.txt`,
            },
          },
        ],
      },
      { blocks: [{ type: "text", text: "done" }] },
    );
    const { id, events } = await say("show the environment");
    expect(finalState(events)).toBe("Idle");
    const toModel = JSON.stringify(test.llm.requests.at(-1)?.body);
    // the command ran and printed an environment without the key in it
    expect(toModel).toContain("WORKSPACE_DIR=");
    expect(toModel).toContain("count=0");
    expect(toModel).toContain("someone pasted [redacted] here");
    expect(toModel).not.toContain(KEY);
    const stored = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages?view=full`),
      params({ id }),
    );
    expect(await stored.text()).not.toContain(KEY);
  });
});

describe("the environment's key", () => {
  it("still works; the answer says which source is in force; removing the kept key goes back to it", async () => {
    const test = await start({ ANTHROPIC_API_KEY: ENV_KEY, ARBOR_PROVIDER: "anthropic" });
    const before = (await view()).body.providers.find((p) => p.provider === "anthropic");
    expect(before).toMatchObject({ source: "environment", environment: true, hint: null });
    test.llm.enqueue({ blocks: [{ type: "text", text: "env" }] });
    await say("one");
    expect(test.llm.requests.at(-1)?.headers["x-api-key"]).toBe(ENV_KEY);

    expect((await put(KEY)).status).toBe(200);
    const during = (await view()).body.providers.find((p) => p.provider === "anthropic");
    expect(during).toMatchObject({ source: "settings", environment: true, hint: "…wxyz" });
    test.llm.enqueue({ blocks: [{ type: "text", text: "kept" }] });
    await say("two");
    expect(test.llm.requests.at(-1)?.headers["x-api-key"]).toBe(KEY);

    const removed = await one.DELETE(
      request("DELETE", "/api/settings/provider-keys/anthropic"),
      anthropic,
    );
    expect(removed.status).toBe(200);
    test.llm.enqueue({ blocks: [{ type: "text", text: "env again" }] });
    await say("three");
    expect(test.llm.requests.at(-1)?.headers["x-api-key"]).toBe(ENV_KEY);
  });

  it("a removal that would leave ARBOR_PROVIDER without a key is refused, saying why", async () => {
    await start({ ANTHROPIC_API_KEY: ENV_KEY });
    // ARBOR_PROVIDER=anthropic needs a key: the environment gives none once the kept one is
    // the only one (a server started with the kept key alone)
    const test = server as TestServer;
    await put(KEY);
    await test.close();
    server = undefined;
    const dataDir = test.runtime.dataDir;
    server = await startTestServer({
      ARBOR_PROVIDER: "anthropic",
      ANTHROPIC_API_KEY: "",
      ARBOR_DATA_DIR: dataDir,
    });
    expect((await view()).body.model.protocol).toBe("anthropic-messages");
    const refused = await one.DELETE(
      request("DELETE", "/api/settings/provider-keys/anthropic"),
      anthropic,
    );
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toContain("ANTHROPIC_API_KEY");
  });
});
