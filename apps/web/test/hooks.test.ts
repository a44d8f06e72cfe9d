// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell expansions in hook commands
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WorkspaceTrustResponseSchema } from "@arbor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as messages from "@/app/api/sessions/[id]/messages/route";
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

// Issue #26 finding 8 over the route handlers: a workspace's Claude Code hooks
// (.claude/settings.json) are listed by GET /api/workspace/trust one command at a time, run only
// once a person trusted them, and a trusted PreToolUse hook that exits 2 keeps bash from running
// while the model reads its stderr.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ ARBOR_SANDBOX: "off" });
  mkdirSync(join(server.workspace, ".claude"));
  writeFileSync(
    join(server.workspace, ".claude", "settings.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "command",
                command:
                  'cat > "$CLAUDE_PROJECT_DIR/hook-input.json"; echo "HOOK-SAYS: use the test script, key=${ANTHROPIC_API_KEY:-none}" >&2; exit 2',
              },
            ],
          },
        ],
      },
    }),
  );
}, 30_000);
afterAll(async () => {
  await server.close();
});

async function trustView() {
  const response = await trustRoute.GET(jsonRequest("GET", "/api/workspace/trust"), params({}));
  expect(response.status).toBe(200);
  return WorkspaceTrustResponseSchema.parse(await response.json());
}

async function runBash(file: string): Promise<string> {
  server.llm.enqueue(
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
  );
  const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
  const events = await readSse(
    await messages.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages`, {
        session_id: id,
        payload: { type: "text", text: "touch it" },
      }),
      params({ id }),
    ),
  );
  expect(finalState(events)).toBe("Idle");
  return JSON.stringify(server.llm.requests.at(-1)?.body);
}

describe("hooks of .claude/settings.json", () => {
  it("are listed untrusted, one command at a time, and do not run before a person trusts them", async () => {
    const { definitions } = await trustView();
    expect(definitions).toEqual([
      expect.objectContaining({
        kind: "hook",
        file: ".claude/settings.json",
        name: "PreToolUse[0].hooks[0]",
        status: "untrusted",
        runs: expect.objectContaining({
          command: "bash",
          hook: { event: "PreToolUse", matcher: "Bash", timeout_s: 60 },
        }),
      }),
    ]);
    await runBash("untrusted-ran");
    expect(existsSync(join(server.workspace, "untrusted-ran"))).toBe(true);
    expect(existsSync(join(server.workspace, "hook-input.json"))).toBe(false);
  });

  it("trusted, a PreToolUse hook that exits 2 blocks bash and the model reads its stderr (no server key)", async () => {
    const [hook] = (await trustView()).definitions;
    const trusted = await trustRoute.POST(
      jsonRequest("POST", "/api/workspace/trust", {
        file: hook?.file,
        name: hook?.name,
        hash: hook?.hash,
      }),
      params({}),
    );
    expect(trusted.status).toBe(200);
    const toModel = await runBash("blocked-ran");
    expect(existsSync(join(server.workspace, "blocked-ran"))).toBe(false);
    expect(toModel).toContain("HOOK-SAYS: use the test script, key=none");
    expect(
      JSON.parse(readFileSync(join(server.workspace, "hook-input.json"), "utf8")),
    ).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "touch blocked-ran" },
    });
  });

  it("an edited hook is untrusted again and does not run", async () => {
    const file = join(server.workspace, ".claude", "settings.json");
    writeFileSync(file, readFileSync(file, "utf8").replace("exit 2", "exit 2 "));
    expect((await trustView()).definitions[0]?.status).toBe("changed");
    await runBash("changed-ran");
    expect(existsSync(join(server.workspace, "changed-ran"))).toBe(true);
  });
});
