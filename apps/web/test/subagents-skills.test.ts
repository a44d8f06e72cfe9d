import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentsResponse, SessionSummary, SkillsResponse } from "@arbor/core";
import type { ScriptedTurn } from "@arbor/core/testing";
import { describe, expect, it } from "vitest";
import * as loops from "@/app/api/admin/sessions/[id]/loops/route";
import * as adminSessions from "@/app/api/admin/sessions/route";
import * as agentsRoute from "@/app/api/agents/route";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as interrupt from "@/app/api/sessions/[id]/interrupt/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as skillsRoute from "@/app/api/skills/route";
import {
  authedRequest,
  createSessionId,
  finalState,
  jsonRequest,
  params,
  parseSse,
  postText,
  readUntil,
  sendText,
  useTestServer,
} from "./support";

// Sub-agents and skills over HTTP (issue #14), against the fake LLM speaking Anthropic's wire
// format: an agent file becomes a tool whose call runs a child loop (its result returned, its
// events streamed as subagent_update, its loop under the parent's in the admin tree, its usage in
// the session's), an interrupt ends the child at once; skills are listed in the system prompt and
// loaded through the skill tool; GET /api/skills and /api/agents list what was found, with the
// malformed files and why.

// ~/.arbor/skills of the tests: a temporary HOME (never the real one)
const home = mkdtempSync(join(tmpdir(), "arbor-home-"));
mkdirSync(join(home, ".arbor", "skills", "greeting"), { recursive: true });
writeFileSync(
  join(home, ".arbor", "skills", "greeting", "SKILL.md"),
  "---\nname: greeting\ndescription: How to greet (user version)\n---\nSay hi.\n",
);

const server = useTestServer({ HOME: home });

function write(path: string, text: string): void {
  const full = join(server.workspace, path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, text);
}

function researcherFile(extra = ""): void {
  write(
    ".arbor/agents/researcher.md",
    `---\nname: researcher\ndescription: Finds facts in the workspace\ntools: Read, Grep\n${extra}---\nYou research.\n`,
  );
}

const systemOf = (body: unknown): string => JSON.stringify((body as { system?: unknown }).system);
const isChild = (body: unknown): boolean => systemOf(body).includes("You research.");

function toolCall(name: string, input: Record<string, unknown>, usage = { input: 10, output: 2 }) {
  return { blocks: [{ type: "toolCall" as const, name, arguments: input }], usage };
}

async function createAutoSession(): Promise<string> {
  return createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
}

describe("sub-agents over HTTP", () => {
  it("a child's call the policy holds waits for a person; /approvals decides it once", async () => {
    researcherFile();
    let childTurn = 0;
    let parentTurn = 0;
    server.llm.setScript((view): ScriptedTurn => {
      if (isChild(view.body)) {
        childTurn++;
        if (childTurn === 1) return toolCall("read_file", { path: "notes.txt" });
        return { blocks: [{ type: "text", text: "notes.txt says alpha." }] };
      }
      parentTurn++;
      if (parentTurn === 1) return toolCall("researcher", { task: "Read notes.txt" });
      return { blocks: [{ type: "text", text: "done" }] };
    });
    const id = await createSessionId({
      // a read a person decides (approve_read_only is on by default)
      config: {
        approval_policy: { type: "white_list", tools: ["researcher"] },
        approve_read_only: false,
      },
    });
    const { seen, rest } = await readUntil(await postText(id, "go"), (events) =>
      events.some((e) => e.event === "subagent_update" && e.data.kind === "approval"),
    );
    const held = seen.find((e) => e.event === "subagent_update" && e.data.kind === "approval");
    expect(held?.data).toMatchObject({
      tool_name: "researcher",
      call_name: "read_file",
      status: "pending_approval",
      arguments: { path: "notes.txt" },
    });
    const decide = () =>
      approvals.POST(
        jsonRequest("POST", `/api/sessions/${id}/approvals`, {
          decisions: [{ tool_call_id: held?.data.call_id, decision: "approve" }],
        }),
        params({ id }),
      );
    const decided = parseSse(await (await decide()).text());
    expect(decided.map((e) => [e.event, e.data.kind, e.data.status])).toEqual([
      ["subagent_update", "approval", "approved"],
    ]);
    const events = await rest();
    expect(finalState(events)).toBe("Idle");
    // the call ran in the child (its result reached the child's next request)
    const childRequests = server.llm.requests.filter((r) => isChild(r.body));
    expect(JSON.stringify(childRequests[1]?.body)).toContain("alpha");
    const again = parseSse(await (await decide()).text());
    expect(again.find((e) => e.event === "error")?.data.message).toContain("was already approved");
  });

  it("an agent file's tool runs a child loop: result, SSE events, loop tree, usage summed", async () => {
    researcherFile();
    let childTurn = 0;
    let parentTurn = 0;
    server.llm.setScript((view): ScriptedTurn => {
      if (isChild(view.body)) {
        childTurn++;
        if (childTurn === 1)
          return toolCall("read_file", { path: "notes.txt" }, { input: 100, output: 10 });
        return {
          blocks: [{ type: "text", text: "notes.txt says alpha." }],
          usage: { input: 200, output: 20 },
        };
      }
      parentTurn++;
      if (parentTurn === 1) return toolCall("researcher", { task: "What does notes.txt say?" });
      return {
        blocks: [{ type: "text", text: "It says alpha." }],
        usage: { input: 20, output: 4 },
      };
    });
    const id = await createAutoSession();
    const events = await sendText(id, "what is in notes?");
    expect(finalState(events)).toBe("Idle");

    // the child's own request: its prompt, and only the tools its file names (mapped)
    const childRequests = server.llm.requests.filter((r) => isChild(r.body));
    expect(childRequests).toHaveLength(2);
    const childTools =
      (childRequests[0]?.body as { tools?: Array<{ name: string }> } | undefined)?.tools ?? [];
    expect(childTools.map((t) => t.name)).toEqual(["read_file", "search"]);
    // its tool result (the real read_file) went back to the child
    expect(JSON.stringify(childRequests[1]?.body)).toContain("alpha");

    const updates = events.filter((e) => e.event === "subagent_update").map((e) => e.data);
    expect(updates[0]).toMatchObject({ kind: "started", tool_name: "researcher", context_id: id });
    expect(updates.filter((u) => u.kind === "progress").map((u) => u.text)).toEqual([
      'read_file {"path":"notes.txt"}',
    ]);
    expect(
      updates
        .filter((u) => u.kind === "text")
        .map((u) => u.delta)
        .join(""),
    ).toBe("notes.txt says alpha.");
    const ended = updates.at(-1);
    expect(ended).toMatchObject({ kind: "ended", status: "completed", turns: 2 });
    expect(ended?.usage).toMatchObject({ input: 300, output: 30 });

    // the result is the child's final text; the parent answered from it
    const listed = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const body = (await listed.json()) as {
      messages: Array<{ body: Record<string, unknown>; meta?: Record<string, unknown> }>;
    };
    const result = body.messages.find((m) => m.body.tool_name === "researcher");
    expect(result?.body).toMatchObject({
      message_type: "tool_result",
      status: "success",
      content: [{ type: "text", text: "notes.txt says alpha." }],
    });
    expect(result?.meta).toMatchObject({ child_loop_id: ended?.loop_id, usage: { input: 300 } });
    expect(body.messages.at(-1)?.body).toMatchObject({ text: "It says alpha." });

    // the session's usage includes the child's
    const summaries = (await (
      await adminSessions.GET(jsonRequest("GET", "/api/admin/sessions"), params({}))
    ).json()) as SessionSummary[];
    expect(summaries.find((s) => s.id === id)?.usage).toMatchObject({ input: 330, output: 36 });

    // the child loop under its parent in the admin loop tree
    const tree = (await (
      await loops.GET(jsonRequest("GET", `/api/admin/sessions/${id}/loops`), params({ id }))
    ).json()) as {
      loops: Array<{ loop_id: string; parent_loop_id?: string; usage: { input: number } }>;
    };
    const child = tree.loops.find((l) => l.loop_id === ended?.loop_id);
    const parent = tree.loops.find((l) => l.loop_id !== ended?.loop_id);
    expect(child?.parent_loop_id).toBe(parent?.loop_id);
    expect(child?.usage.input).toBe(300);
  });

  it("an interrupt of the parent ends the child's streaming model request at once", async () => {
    researcherFile();
    let parentTurn = 0;
    server.llm.setScript((view): ScriptedTurn => {
      if (isChild(view.body)) {
        // 400 chunks, 25 ms apart: 10 s if nothing stops it
        return {
          blocks: [{ type: "text", text: "x".repeat(400) }],
          chunkSize: 1,
          chunkDelayMs: 25,
        };
      }
      parentTurn++;
      return parentTurn === 1
        ? toolCall("researcher", { task: "talk for long" })
        : { blocks: [{ type: "text", text: "never" }] };
    });
    const id = await createAutoSession();
    const response = await postText(id, "go");
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    let text = "";
    // read until the child's text streams
    while (
      !parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2)).some(
        (e) => e.event === "subagent_update" && e.data.kind === "text",
      )
    ) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error("the stream ended before the child streamed");
      text += new TextDecoder().decode(chunk.value);
    }
    const at = Date.now();
    const stopped = await interrupt.POST(
      jsonRequest("POST", `/api/sessions/${id}/interrupt`),
      params({ id }),
    );
    expect(stopped.status).toBe(200);
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    expect(Date.now() - at).toBeLessThan(2000);
    const events = parseSse(text);
    expect(finalState(events)).toBe("Paused");
    const ended = events.filter((e) => e.event === "subagent_update").at(-1);
    expect(ended?.data).toMatchObject({ kind: "ended", status: "cancelled" });
    // no request after the interrupt: the parent's and the child's one
    expect(server.llm.requests).toHaveLength(2);
  });

  it("GET /api/agents lists the sub-agents, .arbor/agents winning a clash, malformed files with the reason", async () => {
    write(".claude/agents/researcher.md", "---\nname: researcher\ndescription: claude's\n---\nA\n");
    researcherFile("model: inherit\n");
    write(
      ".claude/agents/reviewer.md",
      "---\nname: reviewer\ndescription: Reviews\ntools: Read, Bash\nmodel: haiku\n---\nReview.\n",
    );
    write(".arbor/agents/broken.md", "---\nname: broken\n---\nno description\n");
    const response = await agentsRoute.GET(jsonRequest("GET", "/api/agents"), params({}));
    expect(response.status).toBe(200);
    const listed = (await response.json()) as AgentsResponse;
    expect(listed.agents.map((a) => [a.name, a.source, a.tools, a.model])).toEqual([
      ["researcher", "arbor", ["read_file", "search"], null],
      ["reviewer", "claude", ["read_file", "bash"], "haiku"],
    ]);
    expect(listed.problems).toEqual([
      {
        path: join(server.workspace, ".arbor/agents/broken.md"),
        source: "arbor",
        reason: "`description` is missing",
      },
    ]);
    // without the token: refused like every route
    const anonymous = await agentsRoute.GET(new Request("http://localhost/api/agents"), params({}));
    expect(anonymous.status).toBe(401);
  });

  it("an agent named like a tool (built-in, codebase) is listed as a problem naming the tool (issue #26)", async () => {
    researcherFile();
    write(".arbor/agents/bash.md", "---\nname: bash\ndescription: My shell helper\n---\nB\n");
    write(".claude/agents/find.md", "---\nname: find_definition\ndescription: Finds\n---\nF\n");
    const response = await agentsRoute.GET(jsonRequest("GET", "/api/agents"), params({}));
    const listed = (await response.json()) as AgentsResponse;
    expect(listed.agents.map((a) => a.name)).toEqual(["researcher"]);
    expect(listed.problems).toEqual([
      {
        path: join(server.workspace, ".arbor/agents/bash.md"),
        source: "arbor",
        reason:
          'the name "bash" is taken by the built-in tool bash, which keeps it: this sub-agent is not offered. Rename it (`name` in the front matter).',
      },
      {
        path: join(server.workspace, ".claude/agents/find.md"),
        source: "claude",
        reason: expect.stringContaining(
          'the name "find_definition" is taken by the built-in tool find_definition',
        ),
      },
    ]);
    // a session offers the built-in bash, once, and logs why the agent is not offered
    server.llm.enqueue({ blocks: [{ type: "text", text: "hello" }] });
    const id = await createAutoSession();
    expect(finalState(await sendText(id, "hi"))).toBe("Idle");
    const first = server.llm.requests[0]?.body as { tools?: Array<{ name: string }> } | undefined;
    const offered = first?.tools ?? [];
    expect(offered.filter((t) => t.name === "bash")).toHaveLength(1);
    expect(offered.map((t) => t.name)).toContain("researcher");
    expect(server.logs.filter((l) => l.message === "sub-agent not offered")).toHaveLength(2);
  });
});

describe("skills over HTTP", () => {
  it("lists skills in the system prompt; the skill tool loads the body, then a file", async () => {
    write(
      ".arbor/skills/deploy/SKILL.md",
      "---\nname: deploy\ndescription: How to deploy\n---\nRun scripts/deploy.sh.\n",
    );
    write(".arbor/skills/deploy/scripts/deploy.sh", "echo deploying\n");
    let parentTurn = 0;
    server.llm.setScript((): ScriptedTurn => {
      parentTurn++;
      if (parentTurn === 1) return toolCall("skill", { name: "deploy" });
      if (parentTurn === 2) return toolCall("skill", { name: "deploy", file: "scripts/deploy.sh" });
      return { blocks: [{ type: "text", text: "done" }] };
    });
    const id = await createAutoSession();
    const events = await sendText(id, "deploy it");
    expect(finalState(events)).toBe("Idle");
    const [first, second, third] = server.llm.requests;
    const system = systemOf(first?.body);
    expect(system).toContain("<available_skills>");
    expect(system).toContain("<name>deploy</name>");
    expect(system).toContain("<name>greeting</name>");
    // progressive disclosure: bodies and files are not in the prompt
    expect(system).not.toContain("Run scripts/deploy.sh.");
    expect(system).not.toContain("Say hi.");
    const after = (r: typeof first) =>
      JSON.stringify((r?.body as { messages: unknown[] } | undefined)?.messages.at(-1));
    expect(after(second)).toContain("Run scripts/deploy.sh.");
    expect(after(second)).toContain("- scripts/deploy.sh");
    expect(after(third)).toContain("echo deploying");
  });

  it("GET /api/skills lists the skills (workspace over user), and a malformed SKILL.md with the reason", async () => {
    write(
      ".claude/skills/greeting/SKILL.md",
      "---\nname: greeting\ndescription: How to greet (workspace)\n---\nHello.\n",
    );
    write(".arbor/skills/broken/SKILL.md", "name: broken\n");
    const response = await skillsRoute.GET(jsonRequest("GET", "/api/skills"), params({}));
    expect(response.status).toBe(200);
    const listed = (await response.json()) as SkillsResponse;
    expect(listed.skills).toEqual([
      {
        name: "greeting",
        description: "How to greet (workspace)",
        source: "claude",
        path: join(server.workspace, ".claude/skills/greeting/SKILL.md"),
        enabled: true,
        disabled_by: null,
        disabled_at: null,
      },
    ]);
    expect(listed.problems).toEqual([
      {
        path: join(server.workspace, ".arbor/skills/broken/SKILL.md"),
        source: "arbor",
        reason: "the file does not begin with a `---` front matter line",
      },
    ]);
    const anonymous = await skillsRoute.GET(
      authedRequest("http://localhost/api/skills", { headers: { authorization: "Bearer wrong" } }),
      params({}),
    );
    expect(anonymous.status).toBe(401);
  });
});
