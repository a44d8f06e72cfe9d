// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell expansions in hook commands
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { silent, tempWorkspace } from "../../test/support/session-harness.js";
import { detectSandbox, type Sandbox } from "../tools/sandbox.js";
import { CommandHooks, matches } from "./command-hooks.js";
import { combineVerdicts, verdictOf } from "./hook-output.js";
import { readHookSettings } from "./settings.js";

// Claude Code's hooks contract as Arbor runs it (docs/hooks.md): settings files, matchers, the
// input on stdin, exit codes and JSON answers, trust, and the sandbox with the scrubbed env.

const OFF: Sandbox = { mode: "none", cause: "opted_out", reason: "test" };

function settings(hooks: Record<string, unknown>): string {
  return JSON.stringify({ hooks });
}

function workspaceWith(files: Record<string, string>): string {
  const ws = tempWorkspace({});
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(ws, file, ".."), { recursive: true });
    writeFileSync(join(ws, file), text);
  }
  return ws;
}

function hooksOf(
  ws: string,
  options: {
    sandbox?: Sandbox;
    trusted?: (name: string) => boolean;
    env?: Record<string, string>;
  } = {},
): CommandHooks {
  return new CommandHooks({
    runner: {
      workspace: ws,
      env: options.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      sandbox: options.sandbox ?? OFF,
    },
    isTrusted: (d) => options.trusted?.(d.name) ?? true,
    logger: silent,
  });
}

const info = { session_id: "s1" };
const bashCall = { toolCallId: "c1", toolName: "bash", args: { command: "ls" } };

describe("readHookSettings", () => {
  it("reads .claude/settings.json, .claude/settings.local.json and .arbor/settings.json, one definition per command", () => {
    const ws = workspaceWith({
      ".claude/settings.json": settings({
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./a.sh" }] }],
        Stop: [
          {
            hooks: [
              { type: "command", command: "./b.sh", timeout: 5 },
              { type: "command", command: "./c.sh" },
            ],
          },
        ],
        Notification: [{ hooks: [{ type: "command", command: "x" }] }],
      }),
      ".claude/settings.local.json": "{ not json",
      ".arbor/settings.json": settings({
        PostToolUse: [{ hooks: [{ type: "command", command: "./d.sh" }] }],
      }),
    });
    const read = readHookSettings(ws);
    expect(
      read.definitions.map((d) => [d.file, d.name, d.event, d.matcher, d.timeoutSeconds]),
    ).toEqual([
      [".claude/settings.json", "PreToolUse[0].hooks[0]", "PreToolUse", "Bash", 60],
      [".claude/settings.json", "Stop[0].hooks[0]", "Stop", undefined, 5],
      [".claude/settings.json", "Stop[0].hooks[1]", "Stop", undefined, 60],
      [".arbor/settings.json", "PostToolUse[0].hooks[0]", "PostToolUse", undefined, 60],
    ]);
    expect(read.definitions[0]).toMatchObject({
      kind: "hook",
      runs: {
        command: "bash",
        args: ["-c", "./a.sh"],
        hook: { event: "PreToolUse", matcher: "Bash", timeout_s: 60 },
      },
    });
    expect(read.problems.join("\n")).toContain(".claude/settings.local.json");
    expect(read.problems.join("\n")).toContain("hooks.Notification is not an event Arbor runs");
    // an edited command is another definition: its hash changes, its name does not
    writeFileSync(
      join(ws, ".claude/settings.json"),
      settings({
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./a2.sh" }] }],
      }),
    );
    const edited = readHookSettings(ws).definitions[0]!;
    expect(edited.name).toBe("PreToolUse[0].hooks[0]");
    expect(edited.hash).not.toBe(read.definitions[0]!.hash);
  });
});

describe("matchers", () => {
  it("match the whole tool name, Claude Code's or Arbor's; absent, '' and '*' match all", () => {
    expect(matches({ matcher: "Bash" }, "PreToolUse", "bash")).toBe(true);
    expect(matches({ matcher: "bash" }, "PreToolUse", "bash")).toBe(true);
    expect(matches({ matcher: "Edit|Write" }, "PreToolUse", "write_file")).toBe(true);
    expect(matches({ matcher: "Edit|Write" }, "PreToolUse", "read_file")).toBe(false);
    expect(matches({ matcher: "Ba" }, "PreToolUse", "bash")).toBe(false);
    expect(matches({ matcher: "mcp__files__.*" }, "PostToolUse", "mcp__files__read")).toBe(true);
    expect(matches({}, "PreToolUse", "anything")).toBe(true);
    expect(matches({ matcher: "*" }, "PreToolUse", "anything")).toBe(true);
    expect(matches({ matcher: "(" }, "PreToolUse", "bash")).toBe(false);
    expect(matches({ matcher: "auto" }, "PreCompact", "manual")).toBe(false);
    // Stop has no matcher: one written there is ignored
    expect(matches({ matcher: "Bash" }, "Stop", undefined)).toBe(true);
  });
});

describe("verdictOf: exit codes and JSON answers per event", () => {
  const exited = (code: number, stdout = "", stderr = "") =>
    ({ type: "exited", code, stdout, stderr }) as const;

  it("exit 2 blocks with stderr; PreCompact's exit 2 is only logged", () => {
    for (const event of [
      "PreToolUse",
      "PostToolUse",
      "UserPromptSubmit",
      "Stop",
      "SubagentStop",
    ] as const) {
      expect(verdictOf(event, exited(2, "ignored", "no rm please\n"))).toEqual({
        block: "no rm please",
      });
    }
    expect(verdictOf("PreCompact", exited(2, "", "not now"))).toEqual({
      problem: "exit 2: not now",
    });
  });

  it("another non-zero exit, a timeout or a refusal never blocks", () => {
    expect(verdictOf("PreToolUse", exited(1, "", "oops"))).toEqual({ problem: "exit 1: oops" });
    expect(verdictOf("PreToolUse", exited(127))).toEqual({ problem: "exit 127" });
    expect(verdictOf("PreToolUse", { type: "timed_out", timeoutSeconds: 3 })).toEqual({
      problem: "timed out after 3s",
    });
    expect(verdictOf("Stop", { type: "not_started", reason: "no sandbox" }).block).toBeUndefined();
  });

  it("exit 0: stdout is context for a prompt only; JSON decides", () => {
    expect(verdictOf("UserPromptSubmit", exited(0, "today is Friday\n"))).toEqual({
      context: "today is Friday",
    });
    expect(verdictOf("PreToolUse", exited(0, "looks fine"))).toEqual({});
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "use rg",
      },
    });
    expect(verdictOf("PreToolUse", exited(0, deny))).toEqual({ block: "use rg" });
    const allow = JSON.stringify({ hookSpecificOutput: { permissionDecision: "allow" } });
    expect(verdictOf("PreToolUse", exited(0, allow))).toEqual({});
    expect(
      verdictOf("PreToolUse", exited(0, JSON.stringify({ decision: "block", reason: "legacy" }))),
    ).toEqual({
      block: "legacy",
    });
    expect(
      verdictOf(
        "PostToolUse",
        exited(0, JSON.stringify({ decision: "block", reason: "lint failed" })),
      ),
    ).toEqual({ block: "lint failed" });
    expect(
      verdictOf(
        "PostToolUse",
        exited(0, JSON.stringify({ hookSpecificOutput: { additionalContext: "3 warnings" } })),
      ),
    ).toEqual({ context: "3 warnings" });
    expect(
      verdictOf("Stop", exited(0, JSON.stringify({ decision: "block", reason: "run the tests" }))),
    ).toEqual({
      block: "run the tests",
    });
    expect(
      verdictOf(
        "UserPromptSubmit",
        exited(0, JSON.stringify({ continue: false, stopReason: "frozen" })),
      ),
    ).toEqual({ block: "frozen" });
    expect(
      verdictOf("PreCompact", exited(0, JSON.stringify({ decision: "block", reason: "x" }))),
    ).toEqual({});
  });

  it("several hooks: any block wins, contexts add up", () => {
    expect(combineVerdicts([{ context: "a" }, { block: "no" }, { context: "b" }, {}])).toEqual({
      block: "no",
      context: "a\nb",
    });
  });
});

describe("CommandHooks: real commands", () => {
  it("PreToolUse: the input on stdin, exit 2 blocks with stderr, a Read matcher does not fire for bash", async () => {
    const ws = workspaceWith({
      ".claude/settings.json": settings({
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "command",
                command: 'cat > "$CLAUDE_PROJECT_DIR/input.json"; echo "no ls here" >&2; exit 2',
              },
            ],
          },
          { matcher: "Read", hooks: [{ type: "command", command: "touch read-fired" }] },
        ],
      }),
    });
    const verdict = await hooksOf(ws).preToolUse(info, bashCall);
    expect(verdict).toEqual({ block: "no ls here" });
    const input = JSON.parse(readFileSync(join(ws, "input.json"), "utf8"));
    expect(input).toMatchObject({
      session_id: "s1",
      transcript_path: "",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      arbor_tool_name: "bash",
      tool_input: { command: "ls" },
      tool_use_id: "c1",
    });
    expect(typeof input.cwd).toBe("string");
    expect(() => readFileSync(join(ws, "read-fired"))).toThrow();
    // a file tool's input carries Claude Code's file_path as well
    await hooksOf(ws).preToolUse(info, {
      toolCallId: "c2",
      toolName: "read_file",
      args: { path: "a.txt" },
    });
    expect(readFileSync(join(ws, "read-fired"), "utf8")).toBe("");
  });

  it("an untrusted hook does not run; trusted, it does", async () => {
    const ws = workspaceWith({
      ".claude/settings.json": settings({
        PreToolUse: [{ hooks: [{ type: "command", command: "touch ran; exit 2" }] }],
      }),
    });
    expect(await hooksOf(ws, { trusted: () => false }).preToolUse(info, bashCall)).toEqual({});
    expect(() => readFileSync(join(ws, "ran"))).toThrow();
    expect(await hooksOf(ws).preToolUse(info, bashCall)).toEqual({
      block: "PreToolUse hook exited with code 2",
    });
    expect(readFileSync(join(ws, "ran"), "utf8")).toBe("");
  });

  it("PostToolUse gets tool_response; UserPromptSubmit, Stop, SubagentStop and PreCompact their fields", async () => {
    const dump = (name: string) => `cat > "${name}.json"`;
    const ws = workspaceWith({
      ".arbor/settings.json": settings({
        PostToolUse: [
          {
            hooks: [
              {
                type: "command",
                command: `${dump("post")}; echo '{"decision":"block","reason":"fix lint"}'`,
              },
            ],
          },
        ],
        UserPromptSubmit: [
          { hooks: [{ type: "command", command: `${dump("prompt")}; echo "branch: main"` }] },
        ],
        Stop: [
          {
            hooks: [
              { type: "command", command: `${dump("stop")}; echo "tests not run" >&2; exit 2` },
            ],
          },
        ],
        SubagentStop: [{ hooks: [{ type: "command", command: `${dump("substop")}; exit 0` }] }],
        PreCompact: [
          {
            matcher: "manual",
            hooks: [{ type: "command", command: `${dump("compact")}; exit 2` }],
          },
        ],
      }),
    });
    const hooks = hooksOf(ws);
    expect(await hooks.postToolUse(info, bashCall, { output: "a\nb" })).toEqual({
      block: "fix lint",
    });
    expect(await hooks.userPromptSubmit(info, "hello")).toEqual({ context: "branch: main" });
    expect(await hooks.stop("Stop", info, false)).toEqual({ block: "tests not run" });
    expect(await hooks.stop("SubagentStop", info, true)).toEqual({});
    await hooks.preCompact(info, "auto", "");
    expect(() => readFileSync(join(ws, "compact.json"))).toThrow();
    await hooks.preCompact(info, "manual", "keep the plan");
    const read = (name: string) => JSON.parse(readFileSync(join(ws, `${name}.json`), "utf8"));
    expect(read("post")).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_response: { output: "a\nb" },
    });
    expect(read("prompt")).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "hello" });
    expect(read("stop")).toMatchObject({ hook_event_name: "Stop", stop_hook_active: false });
    expect(read("substop")).toMatchObject({
      hook_event_name: "SubagentStop",
      stop_hook_active: true,
    });
    expect(read("compact")).toMatchObject({
      hook_event_name: "PreCompact",
      trigger: "manual",
      custom_instructions: "keep the plan",
    });
  });

  it("a hook that outlives its timeout is killed and does not block", async () => {
    const ws = workspaceWith({
      ".claude/settings.json": settings({
        PreToolUse: [{ hooks: [{ type: "command", command: "sleep 5; exit 2", timeout: 0.3 }] }],
      }),
    });
    const started = Date.now();
    expect(await hooksOf(ws).preToolUse(info, bashCall)).toEqual({});
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("runs with the scrubbed environment and, with bubblewrap, in the sandbox", async () => {
    const sandbox = await detectSandbox({ env: {} });
    const ws = workspaceWith({
      ".claude/settings.json": settings({
        PreToolUse: [
          {
            hooks: [
              {
                type: "command",
                command:
                  'echo "key=${ANTHROPIC_API_KEY:-none}" >&2; touch /etc/arbor-hook-was-here 2>/dev/null && echo "wrote /etc" >&2; exit 2',
              },
            ],
          },
        ],
      }),
    });
    // the runner is given the tool environment (toolEnvironment), never the server's
    const verdict = await hooksOf(ws, {
      sandbox,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    }).preToolUse(info, bashCall);
    expect(verdict.block).toContain("key=none");
    if (sandbox.mode === "bubblewrap") expect(verdict.block).not.toContain("wrote /etc");
  });

  it("refused by the sandbox gate when there is no working sandbox and the server serves beyond loopback", async () => {
    const ws = workspaceWith({
      ".claude/settings.json": settings({
        PreToolUse: [{ hooks: [{ type: "command", command: "touch ran; exit 2" }] }],
      }),
    });
    const hooks = new CommandHooks({
      runner: {
        workspace: ws,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        sandbox: { mode: "none", cause: "not_working", reason: "bwrap is not installed" },
      },
      isTrusted: () => true,
      logger: silent,
    });
    // a config file starts a hook, not a person's approval of this run: refused, never blocking
    expect(await hooks.preToolUse(info, bashCall)).toEqual({});
    expect(() => readFileSync(join(ws, "ran"))).toThrow();
  });
});
