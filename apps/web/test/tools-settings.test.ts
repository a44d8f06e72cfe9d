import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeBubblewrap, SettingsResponseSchema } from "@arbor/core";
import { afterEach, describe, expect, it } from "vitest";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as sessions from "@/app/api/sessions/route";
import * as settings from "@/app/api/settings/route";
import {
  finalState,
  jsonRequest,
  params,
  readSse,
  startTestServer,
  TEST_TOKEN,
  type TestServer,
} from "./support";

// Issue #9: tools get no secrets, and the settings say how commands run. Over the route handlers,
// with the fake LLM server asking for real bash calls.

const KEY = "sk-ant-route-test-0123456789";
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-web-data-"));
  server = await startTestServer({ ANTHROPIC_API_KEY: KEY, ARBOR_DATA_DIR: dataDir, ...env });
  return server;
}

async function getSettings() {
  const response = await settings.GET(jsonRequest("GET", "/api/settings"), params({}));
  expect(response.status).toBe(200);
  return SettingsResponseSchema.parse(await response.json());
}

describe("GET /api/settings", () => {
  it("answers the sandbox in use and the names tool processes get, no values", async () => {
    await start({ ARBOR_TOOL_ENV: "MY_SETTING,ANTHROPIC_API_KEY", MY_SETTING: "x" });
    const answer = await getSettings();
    // bubblewrap is installed for the tests (scripts/arbor.mjs); without it this fails, saying why
    expect(await probeBubblewrap()).toEqual({ ok: true });
    expect(answer.sandbox).toEqual({ mode: "bubblewrap", network: false, refused: "none" });
    expect(answer.tool_env).toContain("WORKSPACE_DIR");
    expect(answer.tool_env).toContain("MY_SETTING");
    expect(answer.tool_env).not.toContain("ANTHROPIC_API_KEY");
    expect(JSON.stringify(answer)).not.toContain(KEY);
    // what a branch falls back to: the branch settings show them
    expect(answer.default_system_prompt).toContain("You are Arbor");
    expect(answer.default_pipeline).toEqual([
      "file_reference",
      "tool_enhancement",
      "system_prompt",
      "optimization",
    ]);
  });

  it("says when commands run without a sandbox, why, and how to confine them", async () => {
    // opted out: nothing is refused, even beyond loopback
    await start({
      ARBOR_SANDBOX: "off",
      HOST: "0.0.0.0",
      // beyond loopback the owner needs a real sign-in method (docs/accounts.md)
      ARBOR_OWNER_PASSWORD: "correct horse battery",
    });
    expect((await getSettings()).sandbox).toEqual({
      mode: "none",
      network: true,
      reason: "ARBOR_SANDBOX=off",
      refused: "none",
      fix: "to confine tool processes, install bubblewrap (apt-get install bubblewrap) and unset ARBOR_SANDBOX",
    });
  });
});

describe("bash through a session", () => {
  it("sees no key; a secret it prints is redacted before it is stored or sent to the model", async () => {
    const test = await start();
    writeFileSync(join(test.workspace, "leak.txt"), `the key is ${KEY}\n`);
    // the install token (ARBOR_TOKEN here, else the data dir's token file) is a secret too
    const token = TEST_TOKEN;
    writeFileSync(join(test.workspace, "token-copy.txt"), `token=${token}\n`);
    test.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "call_env",
            name: "bash",
            arguments: { command: "env | grep -c ANTHROPIC || true; cat leak.txt token-copy.txt" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "done" }] },
    );
    const created = await sessions.POST(
      jsonRequest("POST", "/api/sessions", {
        config: { approval_policy: { type: "auto_approve_all" } },
      }),
      params({}),
    );
    const { session_id: id } = (await created.json()) as { session_id: string };
    const stream = await readSse(
      await messages.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages`, {
          session_id: id,
          payload: { type: "text", text: "look" },
        }),
        params({ id }),
      ),
    );
    expect(finalState(stream)).toBe("Idle");
    expect(JSON.stringify(stream)).not.toContain(KEY);
    const toModel = JSON.stringify(test.llm.requests[1]?.body);
    expect(toModel).toContain("Exit code: 0\\n0\\nthe key is [redacted]\\ntoken=[redacted]");
    expect(toModel).not.toContain(token);
    expect(toModel).not.toContain(KEY);
    const stored = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const text = await stored.text();
    expect(text).toContain("the key is [redacted]");
    expect(text).not.toContain(KEY);
    // the command's group was recorded while it ran and is forgotten once it has gone (the
    // sweep after the command's close event may wait for the group's last member: 200 ms)
    await expect
      .poll(() => readdirSync(join(test.runtime.dataDir, "tool-processes")), { timeout: 5_000 })
      .toEqual([]);
  });
});
