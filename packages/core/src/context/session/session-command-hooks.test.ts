import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  errors,
  harness,
  say,
  silent,
  tempWorkspace,
} from "../../../test/support/session-harness.js";
import { CommandHooks } from "../../command-hooks/command-hooks.js";
import type { StreamRequest } from "../../llm/provider.js";
import { AgentLibrary, defaultAgentDirs } from "../../subagents/agent-files.js";
import { createDefaultTools } from "../../tools/builtin/default-tools.js";
import { MAX_STOP_HOOK_CONTINUATIONS } from "./run-driver.js";

// A workspace's Claude Code hooks around a session's tool calls (docs/hooks.md): a PreToolUse
// hook that exits 2 keeps the call from running and the model reads its stderr; a PostToolUse
// hook's feedback reaches the model with the result.

function setup(hooks: Record<string, unknown>, trusted = true) {
  const ws = tempWorkspace({ "a.txt": "alpha\n" });
  mkdirSync(join(ws, ".claude"), { recursive: true });
  writeFileSync(join(ws, ".claude", "settings.json"), JSON.stringify({ hooks }));
  const sandbox = { mode: "none", cause: "opted_out", reason: "test" } as const;
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const commandHooks = new CommandHooks({
    runner: { workspace: ws, env, sandbox },
    isTrusted: () => trusted,
    logger: silent,
  });
  return {
    ws,
    extra: {
      tools: () => createDefaultTools({ workspaceRoot: ws, env, sandbox }),
      commandHooks: () => commandHooks,
    },
  };
}

function toolResultText(request: { messages: readonly { role: string; content: unknown }[] }) {
  const result = request.messages.find((m) => m.role === "toolResult");
  return JSON.stringify(result?.content ?? null);
}

describe("Session: command hooks around tool calls", () => {
  it("a trusted PreToolUse hook that exits 2 blocks bash; the model reads its stderr", async () => {
    const { ws, extra } = setup({
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [{ type: "command", command: 'echo "hook says: no touching" >&2; exit 2' }],
        },
      ],
    });
    const h = harness([call("bash", { command: "touch made-by-bash" }, "c1"), say("ok")], extra);
    const session = await h.manager.create({
      config: { workspace: ws, approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "touch it" }));
    expect(errors(events)).toEqual([]);
    expect(() => readFileSync(join(ws, "made-by-bash"))).toThrow();
    expect(toolResultText(h.provider.requests[1]!)).toContain("hook says: no touching");
  });

  it("an untrusted hook does not run: bash runs", async () => {
    const { ws, extra } = setup(
      { PreToolUse: [{ hooks: [{ type: "command", command: "touch hook-ran; exit 2" }] }] },
      false,
    );
    const h = harness([call("bash", { command: "touch made-by-bash" }, "c1"), say("ok")], extra);
    const session = await h.manager.create({
      config: { workspace: ws, approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "touch it" }));
    expect(readFileSync(join(ws, "made-by-bash"), "utf8")).toBe("");
    expect(() => readFileSync(join(ws, "hook-ran"))).toThrow();
  });

  it("a PostToolUse hook's feedback reaches the model with the tool's result", async () => {
    const { ws, extra } = setup({
      PostToolUse: [
        {
          matcher: "Read",
          hooks: [
            {
              type: "command",
              command: `echo '{"decision":"block","reason":"alpha is deprecated"}'`,
            },
          ],
        },
      ],
    });
    const h = harness([call("read_file", { path: "a.txt" }, "c1"), say("ok")], extra);
    const session = await h.manager.create({
      config: { workspace: ws, approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "read it" }));
    const text = toolResultText(h.provider.requests[1]!);
    expect(text).toContain("alpha");
    expect(text).toContain("PostToolUse hook: alpha is deprecated");
  });
});

describe("Session: prompt, stop and compaction hooks", () => {
  it("UserPromptSubmit: exit 2 refuses the message (not stored, no model call); stdout joins the prompt", async () => {
    const { ws, extra } = setup({
      UserPromptSubmit: [
        {
          hooks: [
            {
              type: "command",
              command:
                'grep -q password && { echo "no passwords in prompts" >&2; exit 2; }; echo "branch: main"',
            },
          ],
        },
      ],
    });
    const h = harness([say("ok")], extra);
    const session = await h.manager.create({ config: { workspace: ws } });
    const refused = await collect(
      session.sendMessage({ type: "text", text: "my password is hunter2" }),
    );
    expect(errors(refused).map((e) => e.message)).toEqual([
      "A UserPromptSubmit hook refused the message: no passwords in prompts",
    ]);
    expect(h.provider.requests).toHaveLength(0);
    expect(JSON.stringify(await h.store.loadSession(session.id))).not.toContain("hunter2");
    await collect(session.sendMessage({ type: "text", text: "hello" }));
    expect(JSON.stringify(h.provider.requests[0]!.messages)).toContain("branch: main");
  });

  it("Stop: exit 2 keeps the agent going with stderr as its next input; stop_hook_active then lets it end", async () => {
    const { ws, extra } = setup({
      Stop: [
        {
          hooks: [
            {
              type: "command",
              command:
                'grep -q \'"stop_hook_active":false\' && { echo "run the tests first" >&2; exit 2; }; exit 0',
            },
          ],
        },
      ],
    });
    const h = harness([say("done"), say("tests ran")], extra);
    const session = await h.manager.create({ config: { workspace: ws } });
    const events = await collect(session.sendMessage({ type: "text", text: "fix it" }));
    expect(errors(events)).toEqual([]);
    expect(h.provider.requests).toHaveLength(2);
    expect(JSON.stringify(h.provider.requests[1]!.messages)).toContain(
      "Stop hook feedback: run the tests first",
    );
  });

  it("Stop: a hook that never lets go keeps one run going at most 8 times", async () => {
    const { ws, extra } = setup({
      Stop: [{ hooks: [{ type: "command", command: 'echo "again" >&2; exit 2' }] }],
    });
    const h = harness(
      Array.from({ length: 12 }, (_, i) => say(`answer ${i}`)),
      extra,
    );
    const session = await h.manager.create({ config: { workspace: ws } });
    const events = await collect(session.sendMessage({ type: "text", text: "go" }));
    expect(errors(events)).toEqual([]);
    expect(h.provider.requests).toHaveLength(1 + MAX_STOP_HOOK_CONTINUATIONS);
  });

  it("PreCompact runs before an optimization a person asked for (trigger manual)", async () => {
    const { ws, extra } = setup({
      PreCompact: [
        { matcher: "manual", hooks: [{ type: "command", command: "cat > compact.json" }] },
      ],
    });
    const h = harness([say("a".repeat(3000)), say("b".repeat(3000))], extra);
    const session = await h.manager.create({
      config: {
        workspace: ws,
        model: { protocol: "offline", model: "scripted-model", context_window: 2_000 },
      },
    });
    await collect(session.sendMessage({ type: "text", text: "x".repeat(3000) }));
    await collect(session.optimize());
    expect(JSON.parse(readFileSync(join(ws, "compact.json"), "utf8"))).toMatchObject({
      hook_event_name: "PreCompact",
      trigger: "manual",
      session_id: session.id,
    });
  });

  it("SubagentStop: exit 2 keeps the sub-agent going with stderr; the parent gets its final answer", async () => {
    const { ws, extra } = setup({
      SubagentStop: [
        {
          hooks: [
            {
              type: "command",
              command:
                'grep -q \'"stop_hook_active":false\' && { echo "cite a source" >&2; exit 2; }; exit 0',
            },
          ],
        },
      ],
    });
    mkdirSync(join(ws, ".arbor", "agents"), { recursive: true });
    writeFileSync(
      join(ws, ".arbor", "agents", "researcher.md"),
      "---\nname: researcher\ndescription: Finds facts\ntools: read_file\n---\nYou research.\n",
    );
    const agents = new AgentLibrary(defaultAgentDirs(ws));
    const childRequests: StreamRequest[] = [];
    let child = 0;
    let parent = 0;
    const h = harness(
      (view) => {
        const request = view.body as StreamRequest;
        if (request.systemPrompt.startsWith("You research.")) {
          childRequests.push(request);
          return say(child++ === 0 ? "the sky is blue" : "the sky is blue (source: NASA)");
        }
        return parent++ === 0 ? call("researcher", { task: "sky colour?" }, "c1") : say("done");
      },
      { ...extra, agents: () => agents },
    );
    const session = await h.manager.create({
      config: { workspace: ws, approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "ask" }));
    expect(errors(events)).toEqual([]);
    expect(childRequests).toHaveLength(2);
    expect(JSON.stringify(childRequests[1]!.messages)).toContain(
      "SubagentStop hook feedback: cite a source",
    );
    const parentLast = h.provider.requests.at(-1)!;
    expect(JSON.stringify(parentLast.messages)).toContain("source: NASA");
  });
});
