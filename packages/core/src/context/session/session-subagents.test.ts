import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect, harness, say } from "../../../test/support/session-harness.js";
import type { StreamRequest } from "../../llm/provider.js";
import type { SessionEvent } from "../../protocol/events.js";
import { loopTreesFromRecords } from "../../recording/session-tree.js";
import { SkillLibrary } from "../../skills/skill-set.js";
import {
  EnabledSkills,
  ExtensionSwitches,
  InMemoryExtensionSwitchRecords,
} from "../../skills/switches.js";
import { AgentLibrary, defaultAgentDirs } from "../../subagents/agent-files.js";
import { EnabledAgents } from "../../subagents/enabled-agents.js";
import { recordingLogger } from "../../testing/mcp-servers.js";
import type { ScriptedTurn } from "../../testing/script.js";
import type { Session } from "./session.js";

// Sub-agents and skills inside a session (issue #14): agent files become tools whose calls run a
// child loop (recorded under the parent, shown live, its usage in the session's), and skills are
// listed in the system prompt and loaded through the `skill` tool.

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), "arbor-subagents-"));
  mkdirSync(join(ws, ".arbor", "agents"), { recursive: true });
  writeFileSync(
    join(ws, ".arbor", "agents", "researcher.md"),
    "---\nname: researcher\ndescription: Finds facts\ntools: echo, write_note\n---\nYou research.\n",
  );
  mkdirSync(join(ws, ".arbor", "skills", "deploy"), { recursive: true });
  writeFileSync(
    join(ws, ".arbor", "skills", "deploy", "SKILL.md"),
    "---\nname: deploy\ndescription: How to deploy <safely>\n---\nRun make deploy.\n",
  );
  return ws;
}

const isChild = (request: StreamRequest) => request.systemPrompt.startsWith("You research.");

function setup(
  script: (request: StreamRequest, childTurn: number, parentTurn: number) => ScriptedTurn,
) {
  const ws = workspace();
  const agents = new AgentLibrary(defaultAgentDirs(ws));
  const skills = new SkillLibrary([{ dir: join(ws, ".arbor", "skills"), source: "arbor" }]);
  let child = 0;
  let parent = 0;
  const h = harness(
    (view) => {
      const request = view.body as StreamRequest;
      return isChild(request) ? script(request, child++, -1) : script(request, -1, parent++);
    },
    {
      agents: () => agents,
      skills: () => skills,
    },
  );
  return h;
}

/** Sends "go" and reads the run's events until a child's call waits for a person. */
async function runUntilAChildCallWaits(session: Session) {
  const run = session.sendMessage({ type: "text", text: "go" })[Symbol.asyncIterator]();
  const seen: SessionEvent[] = [];
  const approvals = () =>
    seen.flatMap((e) =>
      e.name === "subagent_update" && e.payload.kind === "approval" ? [e.payload] : [],
    );
  while (approvals().length === 0) {
    const next = await run.next();
    if (next.done) throw new Error("the run ended without waiting");
    seen.push(next.value);
  }
  return { run, seen, approvals };
}

describe("sub-agents in a session", () => {
  it("an agent file's tool runs a child loop: result, live events, loop tree, usage summed", async () => {
    const h = setup((_request, childTurn, parentTurn) => {
      if (childTurn === 0)
        return {
          blocks: [{ type: "toolCall", name: "echo", arguments: { text: "probe" } }],
          usage: { input: 100, output: 10 },
        };
      if (childTurn === 1)
        return { blocks: [{ type: "text", text: "Fact: 42." }], usage: { input: 200, output: 20 } };
      if (parentTurn === 0)
        return {
          blocks: [{ type: "toolCall", name: "researcher", arguments: { task: "find it" } }],
          usage: { input: 10, output: 1 },
        };
      return { blocks: [{ type: "text", text: "It is 42." }], usage: { input: 20, output: 2 } };
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["researcher", "echo"] } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "what is it?" }));

    const updates = events.flatMap((e) => (e.name === "subagent_update" ? [e.payload] : []));
    expect(updates[0]).toMatchObject({ kind: "started", tool_name: "researcher" });
    expect(
      updates.filter((u) => u.kind === "progress").map((u) => u.kind === "progress" && u.text),
    ).toEqual(['echo {"text":"probe"}']);
    expect(
      updates
        .filter((u) => u.kind === "text")
        .map((u) => (u.kind === "text" ? u.delta : ""))
        .join(""),
    ).toBe("Fact: 42.");
    const ended = updates.at(-1);
    expect(ended).toMatchObject({ kind: "ended", status: "completed", turns: 2 });

    const messages = session.messages().messages;
    const result = messages.find(
      (m) => m.body.message_type === "tool_result" && m.body.tool_name === "researcher",
    );
    expect(result?.body).toMatchObject({
      content: [{ type: "text", text: "Fact: 42." }],
      status: "success",
    });
    expect(result?.meta).toMatchObject({
      usage: { input: 300, output: 30 },
      child_loop_id: ended?.loop_id,
    });
    expect(messages.at(-1)?.body).toMatchObject({ message_type: "text", text: "It is 42." });

    // the session's usage: the parent's answers plus the child loop
    const [summary] = await h.manager.list();
    expect(summary?.usage).toMatchObject({ input: 330, output: 33 });

    // the child loop under its parent in the loop tree
    const trees = loopTreesFromRecords(await h.store.listLoops(session.id));
    const loops = trees[0]?.loops ?? [];
    const childLoop = loops.find((l) => l.loopId === ended?.loop_id);
    expect(loops).toHaveLength(2);
    const parentLoop = loops.find((l) => l.loopId !== ended?.loop_id);
    expect(childLoop?.parentLoopId).toBe(parentLoop?.loopId);
    expect(childLoop?.usage).toMatchObject({ input: 300, output: 30 });

    // the child's prompt and tools: its file's body and `tools`
    const childRequest = h.provider.requests.find(isChild);
    expect(childRequest?.tools?.map((t) => t.name)).toEqual(["echo", "write_note"]);
  });

  it.each([
    ["approve", "ran"],
    ["deny", "denied"],
  ] as const)("a child's held call waits for a person (%s → %s)", async (decision, outcome) => {
    const h = setup((request, childTurn, parentTurn) => {
      if (childTurn === 0)
        return { blocks: [{ type: "toolCall", name: "write_note", arguments: { text: "x" } }] };
      if (childTurn === 1) {
        const last = JSON.stringify(request.messages.at(-1));
        return { blocks: [{ type: "text", text: last.includes("denied") ? "denied" : "ran" }] };
      }
      if (parentTurn === 0)
        return { blocks: [{ type: "toolCall", name: "researcher", arguments: { task: "write" } }] };
      return { blocks: [{ type: "text", text: "ok" }] };
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["researcher"] } },
    });
    const { run, seen, approvals } = await runUntilAChildCallWaits(session);
    const [held] = approvals();
    expect(held).toMatchObject({
      tool_name: "researcher",
      call_name: "write_note",
      status: "pending_approval",
      arguments: { text: "x" },
    });
    const decided = await collect(
      session.decideToolCalls([{ tool_call_id: held?.call_id ?? "", decision }]),
    );
    expect(decided.map((e) => e.name === "subagent_update" && e.payload)).toEqual([
      expect.objectContaining({
        kind: "approval",
        status: decision === "approve" ? "approved" : "denied",
      }),
    ]);
    for (let next = await run.next(); !next.done; next = await run.next()) seen.push(next.value);
    const result = session
      .messages()
      .messages.find(
        (m) => m.body.message_type === "tool_result" && m.body.tool_name === "researcher",
      );
    expect(result?.body).toMatchObject({ content: [{ text: outcome }] });
    expect(session.state.type).toBe("Idle");
    // decided once: a second decision is refused
    const again = await collect(
      session.decideToolCalls([{ tool_call_id: held?.call_id ?? "", decision: "approve" }]),
    );
    expect(again.find((e) => e.name === "error")?.payload).toMatchObject({
      code: "invalid_request",
    });
  });

  it("a sub-agent named like a tool of the session is not offered, and the log says why (issue #26)", async () => {
    const ws = workspace();
    writeFileSync(
      join(ws, ".arbor", "agents", "echo.md"),
      "---\nname: echo\ndescription: Shadows the echo tool\n---\nYou echo.\n",
    );
    mkdirSync(join(ws, ".claude", "agents"), { recursive: true });
    writeFileSync(
      join(ws, ".claude", "agents", "skill.md"),
      "---\nname: skill\ndescription: Shadows the skill tool\n---\nYou skill.\n",
    );
    const agents = new AgentLibrary(defaultAgentDirs(ws));
    const logger = recordingLogger();
    const h = harness([say("ok"), say("again")], {
      agents: () => agents,
      logger,
    });
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    const tools = h.provider.requests[0]?.tools ?? [];
    const offered = tools.map((t) => t.name);
    expect(offered).toContain("researcher");
    // the one echo offered is the built-in tool
    expect(tools.filter((t) => t.name === "echo").map((t) => t.description)).toEqual([
      "Echoes text",
    ]);
    expect(offered).not.toContain("skill");
    const warnings = logger.lines.filter((l) => l.message === "sub-agent not offered");
    expect(warnings.map((w) => w.fields?.reason)).toEqual([
      expect.stringContaining('the name "echo" is taken by the built-in tool echo'),
      expect.stringContaining('the name "skill" is taken by the built-in tool skill'),
    ]);
    // a second turn does not repeat the warnings
    await collect(session.sendMessage({ type: "text", text: "again" }));
    expect(logger.lines.filter((l) => l.message === "sub-agent not offered")).toHaveLength(2);
  });

  it("interrupting the parent while a child's call waits denies it (cancelled)", async () => {
    const h = setup((_request, childTurn, parentTurn) => {
      if (childTurn === 0)
        return { blocks: [{ type: "toolCall", name: "write_note", arguments: { text: "x" } }] };
      if (parentTurn === 0)
        return { blocks: [{ type: "toolCall", name: "researcher", arguments: { task: "write" } }] };
      return { blocks: [{ type: "text", text: "never" }] };
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["researcher"] } },
    });
    const { run, seen, approvals } = await runUntilAChildCallWaits(session);
    await collect(session.interrupt());
    for (let next = await run.next(); !next.done; next = await run.next()) seen.push(next.value);
    expect(approvals().map((a) => [a.status, a.cancelled])).toEqual([
      ["pending_approval", undefined],
      ["denied", true],
    ]);
    expect(session.state).toMatchObject({ type: "Paused" });
    const [held] = approvals();
    const late = await collect(
      session.decideToolCalls([{ tool_call_id: held?.call_id ?? "", decision: "approve" }]),
    );
    expect(late.find((e) => e.name === "error")?.payload).toMatchObject({
      message: `tool call ${held?.call_id} was already denied`,
    });
  });

  it("a cancelled sub-agent's usage is added to the session's (issue #26)", async () => {
    const h = setup((_request, childTurn, parentTurn) => {
      if (childTurn === 0)
        return {
          blocks: [{ type: "toolCall", name: "echo", arguments: { text: "probe" } }],
          usage: { input: 100, output: 10 },
        };
      if (childTurn === 1)
        return {
          blocks: [{ type: "toolCall", name: "write_note", arguments: { text: "x" } }],
          usage: { input: 200, output: 20 },
        };
      if (parentTurn === 0)
        return {
          blocks: [{ type: "toolCall", name: "researcher", arguments: { task: "write" } }],
          usage: { input: 10, output: 1 },
        };
      return { blocks: [{ type: "text", text: "never" }] };
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["researcher", "echo"] } },
    });
    // two child responses spent, then the child's write_note waits; the person interrupts
    const { run, seen } = await runUntilAChildCallWaits(session);
    await collect(session.interrupt());
    for (let next = await run.next(); !next.done; next = await run.next()) seen.push(next.value);

    const ended = seen.flatMap((e) =>
      e.name === "subagent_update" && e.payload.kind === "ended" ? [e.payload] : [],
    );
    expect(ended).toMatchObject([{ status: "cancelled", usage: { input: 300, output: 30 } }]);
    const result = session
      .messages()
      .messages.find(
        (m) => m.body.message_type === "tool_result" && m.body.tool_name === "researcher",
      );
    expect(result?.body).toMatchObject({ status: "cancelled" });
    expect(result?.meta).toMatchObject({
      usage: { input: 300, output: 30 },
      child_loop_id: ended[0]?.loop_id,
      model: "scripted-model",
    });
    // the session's usage: the parent's one answer plus the child's two
    const [summary] = await h.manager.list();
    expect(summary?.usage).toMatchObject({ input: 310, output: 31 });
  });

  it("interrupting the parent ends the child's model request at once", async () => {
    const h = setup((_request, childTurn, parentTurn) => {
      if (childTurn === 0)
        return {
          blocks: [{ type: "text", text: "x".repeat(2000) }],
          chunkSize: 1,
          chunkDelayMs: 5,
        };
      if (parentTurn === 0)
        return { blocks: [{ type: "toolCall", name: "researcher", arguments: { task: "slow" } }] };
      return { blocks: [{ type: "text", text: "never" }] };
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const seen: string[] = [];
    const stream = session.sendMessage({ type: "text", text: "go" });
    let interruptedAt = 0;
    for await (const event of stream) {
      if (event.name === "subagent_update") {
        seen.push(event.payload.kind);
        if (event.payload.kind === "text" && interruptedAt === 0) {
          interruptedAt = Date.now();
          session.interrupt();
        }
      }
    }
    expect(Date.now() - interruptedAt).toBeLessThan(1000);
    expect(seen.at(-1)).toBe("ended");
    expect(session.state.type).toBe("Paused");
    const result = session
      .messages()
      .messages.find(
        (m) => m.body.message_type === "tool_result" && m.body.tool_name === "researcher",
      );
    expect(result?.body).toMatchObject({ status: "cancelled" });
    // the parent made one request; the child one, cut: no request after the interrupt
    expect(h.provider.requests).toHaveLength(2);
  });
});

describe("skills in a session", () => {
  it("lists skills in the system prompt and loads one through the skill tool", async () => {
    const h = setup((request, _childTurn, parentTurn) => {
      if (parentTurn === 0)
        return { blocks: [{ type: "toolCall", name: "skill", arguments: { name: "deploy" } }] };
      const last = JSON.stringify(request.messages.at(-1));
      return {
        blocks: [{ type: "text", text: last.includes("Run make deploy.") ? "loaded" : "missing" }],
      };
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "deploy it" }));
    const prompt = h.provider.requests[0]?.systemPrompt ?? "";
    expect(prompt).toContain(
      "<available_skills>\n<skill>\n<name>deploy</name>\n<description>How to deploy &lt;safely&gt;</description>\n</skill>\n</available_skills>",
    );
    expect(prompt).not.toContain("Run make deploy.");
    expect(session.messages().messages.at(-1)?.body).toMatchObject({ text: "loaded" });
  });
});

describe("skills and sub-agents switched off in Settings (issue #27, decision 0057)", () => {
  it("are offered no more from the session's next turn: not in the prompt, not a tool", async () => {
    const ws = workspace();
    const switches = new ExtensionSwitches({ records: new InMemoryExtensionSwitchRecords() });
    const skills = new EnabledSkills(
      new SkillLibrary([{ dir: join(ws, ".arbor", "skills"), source: "arbor" }]),
      switches,
    );
    const agents = new EnabledAgents(new AgentLibrary(defaultAgentDirs(ws)), switches);
    const h = harness(
      (view) => {
        const request = view.body as StreamRequest;
        const last = JSON.stringify(request.messages.at(-1));
        // the model tries the skill and the agent by name after they were switched off
        if (last.includes("try them")) {
          return { blocks: [{ type: "toolCall", name: "skill", arguments: { name: "deploy" } }] };
        }
        return { blocks: [{ type: "text", text: "ok" }] };
      },
      { agents: () => agents, skills: () => skills },
    );
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "hello" }));
    const first = h.provider.requests[0];
    expect(first?.systemPrompt).toContain("<name>deploy</name>");
    expect(first?.tools?.map((t) => t.name)).toEqual(
      expect.arrayContaining(["skill", "researcher"]),
    );

    await switches.set("skill", "deploy", false, { id: "u-ana", name: "Ana" });
    await switches.set("agent", "researcher", false, { id: "u-ana", name: "Ana" });
    await collect(session.sendMessage({ type: "text", text: "try them" }));
    const next = h.provider.requests[1];
    // the only skill is off: no skills section and no skill tool; the agent is no tool
    expect(next?.systemPrompt).not.toContain("deploy");
    expect(next?.systemPrompt).not.toContain("<available_skills>");
    expect(next?.tools?.map((t) => t.name)).not.toContain("researcher");
    expect(next?.tools?.map((t) => t.name)).not.toContain("skill");
    // a call by the old name finds no tool
    const result = session
      .messages()
      .messages.find((m) => m.body.message_type === "tool_result" && m.body.tool_name === "skill");
    expect(JSON.stringify(result?.body)).toContain("not found");

    await switches.set("skill", "deploy", true, { id: "u-ana", name: "Ana" });
    await collect(session.sendMessage({ type: "text", text: "again" }));
    expect(h.provider.requests.at(-1)?.systemPrompt).toContain("<name>deploy</name>");
  });
});
