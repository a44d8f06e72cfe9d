// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell expansions in hook commands
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, expect, test } from "@playwright/test";
import { type FakeTurn, nonce, type Servers, useServersAndBrowser } from "./harness.js";

// Issue #26 finding 8 against the production build: a workspace's Claude Code hooks
// (.claude/settings.json) run in Arbor's sessions with Claude Code's contract, only once a
// person trusted them. The hook writes its input where the test can read it and says why on
// stderr with exit 2; the fake LLM server records the request the model got after it.

let servers: Servers;
let browser: Browser;
const tag = nonce();
const HOOK_NAME = "PreToolUse[0].hooks[0]";

useServersAndBrowser({}, (started) => ({ servers, browser } = started));

test.beforeAll(async () => {
  mkdirSync(join(servers.workspace, ".claude"));
  writeFileSync(
    join(servers.workspace, ".claude", "settings.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "command",
                command: `cat > "$CLAUDE_PROJECT_DIR/hook-input-${tag}.json"; echo "HOOK-${tag}: run the test script instead (key=\${ANTHROPIC_API_KEY:-none} token=\${ARBOR_TOKEN:-none})" >&2; exit 2`,
              },
            ],
          },
        ],
      },
    }),
  );
});

const bashTurns = (file: string): FakeTurn[] => [
  {
    blocks: [
      {
        type: "toolCall",
        id: `call_${file}`,
        name: "bash",
        arguments: { command: `touch ${file}` },
      },
    ],
  },
  { blocks: [{ type: "text", text: "done" }] },
];

/** A session (auto-approved) whose model asks bash to touch `file`; the session's id. */
async function runBash(file: string): Promise<string> {
  await servers.script(bashTurns(file));
  const id = await servers.api.createSession({ approval_policy: { type: "auto_approve_all" } });
  await servers.api.send(id, { type: "text", text: "touch it" });
  expect((await servers.api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
  return id;
}

test("an untrusted hook does not run: it is listed for trust and bash runs", async () => {
  const answer = await servers.api.get("/api/workspace/trust");
  expect(answer.status).toBe(200);
  const { definitions } = answer.json as { definitions: Array<Record<string, unknown>> };
  expect(definitions).toEqual([
    expect.objectContaining({
      kind: "hook",
      file: ".claude/settings.json",
      name: HOOK_NAME,
      status: "untrusted",
      runs: expect.objectContaining({
        hook: { event: "PreToolUse", matcher: "Bash", timeout_s: 60 },
      }),
    }),
  ]);
  await runBash(`untrusted-${tag}`);
  expect(existsSync(join(servers.workspace, `untrusted-${tag}`))).toBe(true);
  expect(existsSync(join(servers.workspace, `hook-input-${tag}.json`))).toBe(false);
});

test("a trusted PreToolUse hook that exits 2 blocks a bash call and its message reaches the model", async () => {
  // a person trusts the hook where the app asks: the session page's trust prompt
  const id = await servers.api.createSession({}, "hooks");
  const page = await browser.newPage();
  await page.goto(`${servers.url}/?token=${servers.token}`);
  await page.goto(`${servers.url}/sessions/${id}`);
  const prompt = page.getByTestId("workspace-trust-prompt");
  await expect(prompt).toBeVisible({ timeout: 20_000 });
  const card = prompt.getByTestId("trust-definition");
  await expect(card).toHaveAttribute("data-name", HOOK_NAME);
  await expect(card).toHaveAttribute("data-status", "untrusted");
  await expect(card).toContainText("Hook");
  await expect(card.getByTestId("trust-hook")).toContainText("PreToolUse for Bash");
  await expect(card.getByTestId("trust-command")).toContainText(`HOOK-${tag}`);
  await card.getByRole("button", { name: `Trust ${HOOK_NAME}` }).click();
  await expect(prompt).toBeHidden();
  await page.close();

  const before = (await servers.fakeRequests()).length;
  await runBash(`blocked-${tag}`);
  // bash never ran
  expect(existsSync(join(servers.workspace, `blocked-${tag}`))).toBe(false);
  // the hook got Claude Code's input on stdin
  const input = JSON.parse(readFileSync(join(servers.workspace, `hook-input-${tag}.json`), "utf8"));
  expect(input).toMatchObject({
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: `touch blocked-${tag}` },
    cwd: expect.any(String),
    session_id: expect.any(String),
  });
  // the model's next request carries the hook's stderr as the call's result, and the hook ran
  // with the scrubbed environment: neither the provider key nor Arbor's token
  const requests = (await servers.fakeRequests()).slice(before);
  const toModel = JSON.stringify(requests.at(-1)?.body);
  expect(toModel).toContain(`HOOK-${tag}: run the test script instead (key=none token=none)`);
  expect(toModel).not.toContain(servers.providerKey);
  expect(toModel).not.toContain(servers.token);
});

test("an edited hook is untrusted again: it does not run until trusted as it is now", async () => {
  const file = join(servers.workspace, ".claude", "settings.json");
  writeFileSync(file, readFileSync(file, "utf8").replace("exit 2", "exit 2;"));
  const { definitions } = (await servers.api.get("/api/workspace/trust")).json as {
    definitions: Array<{ name: string; status: string }>;
  };
  expect(definitions.find((d) => d.name === HOOK_NAME)?.status).toBe("changed");
  await runBash(`changed-${tag}`);
  expect(existsSync(join(servers.workspace, `changed-${tag}`))).toBe(true);
});
