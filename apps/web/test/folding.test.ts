import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemorySessionStore } from "@arbor/core";
import type { ScriptedTurn, ScriptRequestView } from "@arbor/core/testing";
import { describe, expect, it } from "vitest";
import * as loops from "@/app/api/admin/sessions/[id]/loops/route";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as eventsRoute from "@/app/api/sessions/[id]/events/route";
import * as folds from "@/app/api/sessions/[id]/folds/route";
import * as interrupt from "@/app/api/sessions/[id]/interrupt/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as resume from "@/app/api/sessions/[id]/resume/route";
import * as session from "@/app/api/sessions/[id]/route";
import { createRuntime, setRuntime } from "@/lib/server/runtime";
import {
  authedRequest,
  capturingLogger,
  createSessionId,
  finalState,
  jsonRequest,
  type ParsedSseEvent,
  params,
  parseSse,
  postText,
  readSse,
  readUntil,
  sendText,
  TEST_TOKEN,
  useTestServer,
} from "./support";

// Context folding in a session (issue #13), over the real routes, SSE and the fake LLM: a fold's
// requests carry its own prompt, not the parent's conversation; the parent gets only the return
// message; budgets are metered (80% warning, forced return at 100%); depth, timeout, interrupt
// and a crash mid-fold each end in a known state.

const server = useTestServer();

type Block = Record<string, unknown> & { type: string };
interface Body {
  messages: Array<{ role: string; content: string | Block[] }>;
  tools?: Array<{ name: string }>;
}

const FOLD_NOTE = "You are working in a fold";

function blocksOf(content: string | Block[]): Block[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

function firstUserText(body: Body): string {
  const first = body.messages[0];
  if (!first) return "";
  return blocksOf(first.content)
    .map((b) => (b.type === "text" ? String(b.text) : ""))
    .join("");
}

const isSummary = (body: Body): boolean => firstUserText(body).startsWith("Summarize these");

/** The marker (`MARK:x`) of the fold a request belongs to; "parent" for the session's own. */
function foldOf(body: Body): string {
  const text = firstUserText(body);
  if (!text.startsWith(FOLD_NOTE)) return "parent";
  return /MARK:(\w+)/.exec(text)?.[1] ?? "?";
}

function assistantTurns(body: Body): number {
  return body.messages.filter((m) => m.role === "assistant").length;
}

/** Answers each request by its fold's plan: the n-th turn of a fold is its plan's n-th. */
function byFold(plans: Record<string, ScriptedTurn[]>) {
  return (request: ScriptRequestView): ScriptedTurn => {
    const body = request.body as Body;
    const plan = plans[foldOf(body)] ?? [];
    return plan[assistantTurns(body)] ?? { blocks: [{ type: "text", text: "(no plan)" }] };
  };
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  blocks: [{ type: "toolCall", name, arguments: args }],
});
const say = (text: string): ScriptedTurn => ({ blocks: [{ type: "text", text }] });

/** The model requests the fake served (summaries left out), as their bodies. */
function modelRequests(): Body[] {
  return server.llm.requests
    .map((r) => r.body as Body)
    .filter((b) => b && Array.isArray(b.messages) && !isSummary(b));
}

/** Every tool_result block of a request, with its text. */
function toolResults(body: Body): Array<{ text: string; isError: boolean }> {
  return body.messages.flatMap((m) =>
    blocksOf(m.content)
      .filter((b) => b.type === "tool_result")
      .map((b) => ({
        text: JSON.stringify(b.content),
        isError: b.is_error === true,
      })),
  );
}

async function foldSession(folding: Record<string, unknown> = {}): Promise<string> {
  return createSessionId({
    config: {
      approval_policy: { type: "auto_approve_all" },
      folding: { enabled: true, ...folding },
    },
  });
}

interface Fold {
  fold_id: string;
  parent_fold_id: string | null;
  depth: number;
  status: string;
  reason: string | null;
  tokens_used: number;
  budget: number;
  warned: boolean;
  message: string | null;
  loop_id: string | null;
  tool_call_id: string | null;
  steps: Array<{ role: string; body: Record<string, unknown>; meta?: { fold_id?: string } }>;
}

async function listFolds(id: string): Promise<Fold[]> {
  const response = await folds.GET(jsonRequest("GET", `/api/sessions/${id}/folds`), params({ id }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { folds: Fold[] }).folds;
}

/** A session whose policy runs reads and `branch` at once and holds writes for a person. */
async function heldFoldSession(): Promise<string> {
  return createSessionId({
    config: {
      approval_policy: { type: "white_list", tools: ["read_file", "branch"] },
      folding: { enabled: true },
    },
  });
}

/** POST /approvals with one decision: the streaming response. */
function decide(
  id: string,
  toolCallId: string,
  decision: "approve" | "deny",
  remember = false,
): Promise<Response> {
  return approvals.POST(
    jsonRequest("POST", `/api/sessions/${id}/approvals`, {
      decisions: [{ tool_call_id: toolCallId, decision, ...(remember ? { remember } : {}) }],
    }),
    params({ id }),
  );
}

/** The write_file calls on a fold's tool_requests. */
function heldCalls(fold: Fold | undefined): Array<Record<string, unknown>> {
  return (fold?.steps ?? [])
    .flatMap((s) => (s.body.calls as Array<Record<string, unknown>> | undefined) ?? [])
    .filter((c) => c.name === "write_file");
}

/** The session's stored events replayed through GET /events, up to `until`'s first match. */
async function replay(
  id: string,
  until: (e: ParsedSseEvent) => boolean,
): Promise<ParsedSseEvent[]> {
  const controller = new AbortController();
  const response = await eventsRoute.GET(
    authedRequest(`http://localhost/api/sessions/${id}/events?after=0`, {
      signal: controller.signal,
    }),
    params({ id }),
  );
  const { seen } = await readUntil(response, (events) => events.some(until));
  controller.abort();
  return seen;
}

function eventsNamed(events: readonly ParsedSseEvent[], name: string) {
  return events.filter((e) => e.event === name).map((e) => e.data);
}

/**
 * Starts the app's runtime as a new process would, each time on the same in-memory store (the
 * previous "process" gone without a word): for the crash tests.
 */
function processOnOneStore(): () => Promise<void> {
  const store = new InMemorySessionStore();
  const env = {
    ARBOR_TOKEN: TEST_TOKEN,
    ARBOR_PROVIDER: "anthropic",
    ANTHROPIC_BASE_URL: server.llm.url,
    ANTHROPIC_API_KEY: "test",
    WORKSPACE_DIR: server.workspace,
    ARBOR_TITLES: "first_message",
  };
  return async () => setRuntime(await createRuntime({ env, store, logger: capturingLogger([]) }));
}

describe("a fold in a session", () => {
  it("works in its own context; the parent sees only its return message", async () => {
    server.llm.setScript(
      byFold({
        parent: [
          call("branch", {
            description: "read the notes",
            prompt: "MARK:a Read notes.txt and report its first word.",
          }),
          say("The notes start with alpha."),
        ],
        a: [
          call("read_file", { path: "notes.txt" }),
          call("return", { message: "first word: alpha" }),
        ],
      }),
    );
    const id = await foldSession();
    const events = await sendText(id, "PARENT-ONLY: what do the notes say?");
    expect(finalState(events)).toBe("Idle");

    const [first, foldFirst, foldSecond, parentNext] = modelRequests();
    // the parent is offered branch, not return; the fold both, with the parent's tools
    expect(first?.tools?.map((t) => t.name)).toContain("branch");
    expect(first?.tools?.map((t) => t.name)).not.toContain("return");
    expect(foldFirst?.tools?.map((t) => t.name)).toEqual(
      expect.arrayContaining(["branch", "return", "read_file"]),
    );
    // the fold's request: its note and prompt, nothing of the parent's conversation
    expect(foldOf(foldFirst!)).toBe("a");
    expect(foldFirst?.messages).toHaveLength(1);
    expect(JSON.stringify(foldFirst)).not.toContain("PARENT-ONLY");
    expect(JSON.stringify(foldSecond)).toContain("gamma");
    // the parent's next request: its own turn and the return message, none of the fold's steps
    expect(foldOf(parentNext!)).toBe("parent");
    expect(toolResults(parentNext!)).toEqual([
      { text: expect.stringContaining("first word: alpha"), isError: false },
    ]);
    expect(JSON.stringify(parentNext?.messages)).not.toContain("gamma");
    expect(JSON.stringify(parentNext?.messages)).not.toContain("read_file");

    // the fold's events streamed with the answer
    const started = eventsNamed(events, "fold_started");
    const returned = eventsNamed(events, "fold_returned");
    expect(started).toEqual([
      expect.objectContaining({ depth: 1, description: "read the notes", budget: 8192 }),
    ]);
    expect(returned).toEqual([
      expect.objectContaining({ forced: false, reason: null, message: "first word: alpha" }),
    ]);
    expect(returned[0]?.tokens_used).toBeGreaterThan(0);

    // its steps are stored and viewable, not on the branch
    const [fold] = await listFolds(id);
    expect(fold).toMatchObject({ status: "returned", depth: 1, message: "first word: alpha" });
    expect(fold?.steps.map((s) => s.body.message_type)).toEqual([
      "text",
      "tool_request",
      "tool_result",
      "tool_request",
      "tool_result",
    ]);
    const listed = (await (
      await messages.GET(jsonRequest("GET", `/api/sessions/${id}/messages`), params({ id }))
    ).json()) as { messages: Fold["steps"] };
    expect(listed.messages.some((m) => m.meta?.fold_id !== undefined)).toBe(false);
    expect(listed.messages.map((m) => m.body.message_type)).toEqual([
      "text",
      "tool_request",
      "tool_result",
      "text",
    ]);

    // the admin loop tree: the fold's loop under the parent's
    const tree = (await (
      await loops.GET(jsonRequest("GET", `/api/admin/sessions/${id}/loops`), params({ id }))
    ).json()) as { loops: Array<{ loop_id: string; child_loop_ids: string[] }> };
    const parent = tree.loops.find((l) => l.child_loop_ids.includes(fold?.loop_id ?? "-"));
    expect(parent).toBeDefined();
    expect(tree.loops.map((l) => l.loop_id)).toContain(fold?.loop_id);
  });

  it("warns at 80% of the budget and forces a return with a partial result at 100%", async () => {
    server.llm.setScript(
      byFold({
        parent: [
          call("branch", { description: "dig", prompt: "MARK:b dig through notes", budget: 1000 }),
          say("ok"),
        ],
        b: [
          { ...call("read_file", { path: "notes.txt" }), usage: { input: 600, output: 250 } },
          { ...call("read_file", { path: "notes.txt" }), usage: { input: 700, output: 100 } },
          call("return", { message: "never reached" }),
        ],
      }),
    );
    const id = await foldSession();
    const events = await sendText(id, "dig");
    const warning = eventsNamed(events, "fold_budget_warning");
    expect(warning).toEqual([expect.objectContaining({ budget: 1000 })]);
    expect(warning[0]?.tokens_used).toBeGreaterThanOrEqual(800);
    const [returned] = eventsNamed(events, "fold_returned");
    expect(returned).toMatchObject({ forced: true, reason: "budget", budget: 1000 });
    expect(returned?.tokens_used).toBeGreaterThanOrEqual(1000);

    const requests = modelRequests();
    const foldRequests = requests.filter((b) => foldOf(b) === "b");
    // the request after the warning carries it; the fold never got a third turn
    expect(foldRequests).toHaveLength(2);
    expect(JSON.stringify(foldRequests[1])).toMatch(/\d+ tokens left: finish and return\./);
    expect(JSON.stringify(foldRequests[0])).not.toContain("tokens left");
    const parentNext = requests.at(-1)!;
    expect(foldOf(parentNext)).toBe("parent");
    const [result] = toolResults(parentNext);
    expect(result?.text).toContain("[fold forced to return: budget;");
    expect(result?.text).toContain("Partial result:");
    const [fold] = await listFolds(id);
    expect(fold).toMatchObject({ status: "forced", reason: "budget", warned: true });
  });

  it("allows depth 3 and refuses depth 4 with an error result naming the depth", async () => {
    server.llm.setScript(
      byFold({
        parent: [call("branch", { description: "one", prompt: "MARK:l1 go" }), say("all done")],
        l1: [
          call("branch", { description: "two", prompt: "MARK:l2 go" }),
          call("return", { message: "l1 done" }),
        ],
        l2: [
          call("branch", { description: "three", prompt: "MARK:l3 go" }),
          call("return", { message: "l2 done" }),
        ],
        l3: [
          call("branch", { description: "four", prompt: "MARK:l4 go" }),
          call("return", { message: "l3 done" }),
        ],
      }),
    );
    const id = await foldSession();
    const events = await sendText(id, "nest");
    expect(finalState(events)).toBe("Idle");
    expect(eventsNamed(events, "fold_started").map((p) => p.depth)).toEqual([1, 2, 3]);
    const requests = modelRequests();
    expect(requests.some((b) => foldOf(b) === "l4")).toBe(false);
    const l3Second = requests.filter((b) => foldOf(b) === "l3")[1]!;
    expect(toolResults(l3Second)).toEqual([
      { text: expect.stringContaining("fold depth 4 exceeds the maximum depth 3"), isError: true },
    ]);
    const listed = await listFolds(id);
    expect(listed.map((f) => [f.depth, f.status, f.message])).toEqual([
      [1, "returned", "l1 done"],
      [2, "returned", "l2 done"],
      [3, "returned", "l3 done"],
    ]);
    expect(listed[1]?.parent_fold_id).toBe(listed[0]?.fold_id);
    expect(toolResults(requests.at(-1)!)).toEqual([
      { text: expect.stringContaining("l1 done"), isError: false },
    ]);
  });

  it("forces a fold whose timeout passes", async () => {
    server.llm.setScript(
      byFold({
        parent: [
          call("branch", { description: "slow", prompt: "MARK:s be slow", timeout_seconds: 0.5 }),
          say("moved on"),
        ],
        s: [{ ...say("too late"), firstChunkDelayMs: 5_000 }],
      }),
    );
    const id = await foldSession();
    const started = Date.now();
    const events = await sendText(id, "go");
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(finalState(events)).toBe("Idle");
    expect(eventsNamed(events, "fold_returned")).toEqual([
      expect.objectContaining({ forced: true, reason: "timeout" }),
    ]);
    const [result] = toolResults(modelRequests().at(-1)!);
    expect(result?.text).toContain("[fold forced to return: timeout;");
  });

  it("ends the folds of an interrupted parent (forced, cancelled)", async () => {
    server.llm.setScript(
      byFold({
        parent: [call("branch", { description: "long", prompt: "MARK:c take long" }), say("-")],
        c: [{ ...say("never"), firstChunkDelayMs: 10_000 }],
      }),
    );
    const id = await foldSession();
    const response = await postText(id, "start");
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    let text = "";
    while (!text.includes("event: fold_started")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    const stopped = await interrupt.POST(
      jsonRequest("POST", `/api/sessions/${id}/interrupt`),
      params({ id }),
    );
    expect(await stopped.json()).toMatchObject({ interrupted: true });
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    const events = parseSse(text);
    expect(eventsNamed(events, "fold_returned")).toEqual([
      expect.objectContaining({ forced: true, reason: "cancelled" }),
    ]);
    expect(finalState(events)).toBe("Paused");
    const [fold] = await listFolds(id);
    expect(fold).toMatchObject({ status: "forced", reason: "cancelled" });
  });

  it("goes through the parent's approval gate: branch waits for a person, and so does a held call in a fold", async () => {
    server.llm.setScript(
      byFold({
        parent: [
          call("branch", { description: "write", prompt: "MARK:w write a file" }),
          say("ok"),
        ],
        w: [
          call("write_file", { path: "out.txt", content: "x" }),
          call("return", { message: "wrote out.txt" }),
        ],
      }),
    );
    const id = await createSessionId({
      config: {
        approval_policy: { type: "white_list", tools: ["read_file"] },
        folding: { enabled: true },
      },
    });
    const first = await sendText(id, "write it");
    expect(finalState(first)).toBe("AwaitingToolApproval");
    expect(eventsNamed(first, "fold_started")).toEqual([]);
    // read before the fold exists; the next read takes the events stored since
    expect(await listFolds(id)).toEqual([]);
    const callId = (
      (await (
        await messages.GET(jsonRequest("GET", `/api/sessions/${id}/messages`), params({ id }))
      ).json()) as { messages: Array<{ body: { calls?: Array<{ id: string; name: string }> } }> }
    ).messages
      .flatMap((m) => m.body.calls ?? [])
      .find((c) => c.name === "branch")?.id;
    expect(callId).toBeDefined();
    // approving `branch` starts the fold, whose write_file waits for a person in turn
    const { seen, rest } = await readUntil(await decide(id, callId!, "approve"), (events) =>
      events.some((e) => e.event === "fold_tool"),
    );
    const [held] = eventsNamed(seen, "fold_tool");
    expect(held).toMatchObject({
      tool_name: "write_file",
      status: "pending_approval",
      arguments: { path: "out.txt", content: "x" },
    });
    const [waiting] = await listFolds(id);
    expect(waiting?.status).toBe("running");
    expect(heldCalls(waiting)).toEqual([
      expect.objectContaining({ name: "write_file", approval: "pending" }),
    ]);
    expect(existsSync(join(server.workspace, "out.txt"))).toBe(false);

    const approved = await readSse(await decide(id, String(held?.tool_call_id), "approve"));
    expect(approved.map((e) => [e.event, e.data.status])).toEqual([["fold_tool", "approved"]]);
    const decided = await rest();
    expect(finalState(decided)).toBe("Idle");
    expect(eventsNamed(decided, "fold_returned")).toEqual([
      expect.objectContaining({ forced: false, message: "wrote out.txt" }),
    ]);
    expect(readFileSync(join(server.workspace, "out.txt"), "utf8")).toBe("x");
    const second = modelRequests().filter((b) => foldOf(b) === "w")[1]!;
    expect(toolResults(second)).toEqual([{ text: expect.any(String), isError: false }]);
    const [fold] = await listFolds(id);
    expect(heldCalls(fold)).toEqual([
      expect.objectContaining({ name: "write_file", approval: "approved", approval_note: "user" }),
    ]);

    // a second decision for the same call is refused at once; the call ran once
    const again = await decide(id, String(held?.tool_call_id), "approve");
    const errors = eventsNamed(await readSse(again), "error");
    expect(errors).toEqual([
      expect.objectContaining({
        code: "invalid_request",
        message: `tool call ${held?.tool_call_id} was already approved`,
      }),
    ]);
    // the decisions are stored events: a replay shows the call's whole story
    const replayed = eventsNamed(
      await replay(id, (e) => e.event === "fold_returned"),
      "fold_tool",
    ).map((p) => p.status);
    expect(replayed).toEqual(["pending_approval", "approved"]);
  });

  it("a denied call in a fold gives the fold's model the denied result; remember is refused nothing", async () => {
    server.llm.setScript(
      byFold({
        parent: [call("branch", { description: "try", prompt: "MARK:d write" }), say("ok")],
        d: [
          call("write_file", { path: "denied.txt", content: "no" }),
          call("return", { message: "it was denied" }),
        ],
      }),
    );
    const id = await heldFoldSession();
    const { seen, rest } = await readUntil(await postText(id, "try"), (events) =>
      events.some((e) => e.event === "fold_tool"),
    );
    const [held] = eventsNamed(seen, "fold_tool");
    const denied = await readSse(await decide(id, String(held?.tool_call_id), "deny"));
    expect(denied.map((e) => [e.event, e.data.status])).toEqual([["fold_tool", "denied"]]);
    const events = await rest();
    expect(finalState(events)).toBe("Idle");
    expect(existsSync(join(server.workspace, "denied.txt"))).toBe(false);
    const second = modelRequests().filter((b) => foldOf(b) === "d")[1]!;
    expect(toolResults(second)).toEqual([
      { text: expect.stringContaining("The user denied this tool call."), isError: true },
    ]);
    const [fold] = await listFolds(id);
    expect(fold).toMatchObject({ status: "returned", message: "it was denied" });
    expect(heldCalls(fold)).toEqual([
      expect.objectContaining({ name: "write_file", approval: "denied", approval_note: "user" }),
    ]);
    const result = fold?.steps.find((s) => s.body.message_type === "tool_result");
    expect(result?.body.status).toBe("denied");
  });

  it("remember on a fold's call adds the tool to the session's white list", async () => {
    server.llm.setScript(
      byFold({
        parent: [call("branch", { description: "write", prompt: "MARK:r write twice" }), say("ok")],
        r: [
          call("write_file", { path: "one.txt", content: "1" }),
          call("write_file", { path: "two.txt", content: "2" }),
          call("return", { message: "both written" }),
        ],
      }),
    );
    const id = await heldFoldSession();
    const { seen, rest } = await readUntil(await postText(id, "write"), (events) =>
      events.some((e) => e.event === "fold_tool"),
    );
    const [held] = eventsNamed(seen, "fold_tool");
    await readSse(await decide(id, String(held?.tool_call_id), "approve", true));
    const events = await rest();
    expect(finalState(events)).toBe("Idle");
    // the second write ran without asking: one call's events only (the stream has them all)
    expect(eventsNamed(events, "fold_tool").map((p) => p.status)).toEqual([
      "pending_approval",
      "approved",
    ]);
    expect(readFileSync(join(server.workspace, "two.txt"), "utf8")).toBe("2");
    const detail = (await (
      await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }))
    ).json()) as { config: { approval_policy: { tools?: string[] } } };
    expect(detail.config.approval_policy.tools).toContain("write_file");
  });

  it("interrupting the parent while a fold's call waits denies it and forces the fold back", async () => {
    server.llm.setScript(
      byFold({
        parent: [call("branch", { description: "stuck", prompt: "MARK:i write" }), say("-")],
        i: [call("write_file", { path: "never.txt", content: "-" }), say("never asked")],
      }),
    );
    const id = await heldFoldSession();
    const { seen, rest } = await readUntil(await postText(id, "go"), (events) =>
      events.some((e) => e.event === "fold_tool"),
    );
    const [held] = eventsNamed(seen, "fold_tool");
    const stopped = await interrupt.POST(
      jsonRequest("POST", `/api/sessions/${id}/interrupt`),
      params({ id }),
    );
    expect(await stopped.json()).toMatchObject({ interrupted: true });
    const events = await rest();
    expect(finalState(events)).toBe("Paused");
    expect(eventsNamed(events, "fold_tool")).toEqual([
      expect.objectContaining({ status: "pending_approval" }),
      expect.objectContaining({ status: "denied", cancelled: true }),
    ]);
    expect(eventsNamed(events, "fold_returned")).toEqual([
      expect.objectContaining({ forced: true, reason: "cancelled" }),
    ]);
    expect(existsSync(join(server.workspace, "never.txt"))).toBe(false);
    const [fold] = await listFolds(id);
    expect(fold).toMatchObject({ status: "forced", reason: "cancelled" });
    expect(heldCalls(fold)).toEqual([
      expect.objectContaining({ approval: "denied", approval_note: "cancelled: the fold ended" }),
    ]);
    // too late to decide: refused, nothing runs
    const late = eventsNamed(
      await readSse(await decide(id, String(held?.tool_call_id), "approve")),
      "error",
    );
    expect(late[0]?.message).toContain("was already denied");
    expect(existsSync(join(server.workspace, "never.txt"))).toBe(false);
  });

  it("a fold waiting for a person is not forced back by its timeout", async () => {
    server.llm.setScript(
      byFold({
        parent: [
          call("branch", { description: "patient", prompt: "MARK:t write", timeout_seconds: 0.5 }),
          say("ok"),
        ],
        t: [
          call("write_file", { path: "late.txt", content: "ok" }),
          call("return", { message: "written after a wait" }),
        ],
      }),
    );
    const id = await heldFoldSession();
    const { seen, rest } = await readUntil(await postText(id, "wait"), (events) =>
      events.some((e) => e.event === "fold_tool"),
    );
    const [held] = eventsNamed(seen, "fold_tool");
    // longer than the fold's timeout
    await new Promise((resolve) => setTimeout(resolve, 900));
    await readSse(await decide(id, String(held?.tool_call_id), "approve"));
    const events = await rest();
    expect(eventsNamed(events, "fold_returned")).toEqual([
      expect.objectContaining({ forced: false, message: "written after a wait" }),
    ]);
    expect(readFileSync(join(server.workspace, "late.txt"), "utf8")).toBe("ok");
  });

  it("keeps a returned lesson for the workspace and injects it into a later fold", async () => {
    await server.restart({ ARBOR_DATA_DIR: mkdtempSync(join(tmpdir(), "arbor-fold-memory-")) });
    server.llm.setScript(
      byFold({
        parent: [
          call("branch", { description: "find the build command", prompt: "MARK:m1 look" }),
          call("branch", { description: "find the build command again", prompt: "MARK:m2 look" }),
          say("done"),
        ],
        m1: [call("return", { message: "the build command is make all", remember: true })],
        m2: [call("return", { message: "as remembered" })],
      }),
    );
    const id = await foldSession();
    const events = await sendText(id, "twice");
    const [first, second] = eventsNamed(events, "fold_started");
    expect(first?.injected_memory_ids).toEqual([]);
    expect(second?.injected_memory_ids).toHaveLength(1);
    const m2 = modelRequests().find((b) => foldOf(b) === "m2")!;
    expect(firstUserText(m2)).toContain(
      "Lessons from earlier folds:\n- the build command is make all",
    );
    expect(firstUserText(m2)).not.toContain("twice");
  });

  it("keeps a fold's steps and events on the SQLite store across a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-fold-db-"));
    const env = {
      ARBOR_TOKEN: TEST_TOKEN,
      ARBOR_PROVIDER: "anthropic",
      ANTHROPIC_BASE_URL: server.llm.url,
      ANTHROPIC_API_KEY: "test",
      WORKSPACE_DIR: server.workspace,
      ARBOR_DATA_DIR: dataDir,
      ARBOR_TITLES: "first_message",
    };
    await setRuntime(await createRuntime({ env, logger: capturingLogger([]) }));
    server.llm.setScript(
      byFold({
        parent: [call("branch", { description: "peek", prompt: "MARK:p read" }), say("ok")],
        p: [call("read_file", { path: "notes.txt" }), call("return", { message: "gamma last" })],
      }),
    );
    const id = await foldSession();
    expect(finalState(await sendText(id, "peek"))).toBe("Idle");
    const before = await listFolds(id);
    await setRuntime(undefined);
    await setRuntime(await createRuntime({ env, logger: capturingLogger([]) }));
    const after = await listFolds(id);
    expect(after).toEqual(before);
    expect(after[0]).toMatchObject({ status: "returned", message: "gamma last" });
    expect(after[0]?.steps).toHaveLength(5);
    const listed = (await (
      await messages.GET(jsonRequest("GET", `/api/sessions/${id}/messages`), params({ id }))
    ).json()) as { messages: Fold["steps"] };
    expect(listed.messages).toHaveLength(4);
  });

  it("recovers from a crash mid-fold: the fold is forced (crash), the parent can resume", async () => {
    // the first process: a fold whose model hangs
    const startProcess = processOnOneStore();
    await startProcess();
    server.llm.setScript(
      byFold({
        parent: [
          call("branch", { description: "crashy", prompt: "MARK:x read then hang" }),
          say("resumed after the crash"),
        ],
        x: [
          call("read_file", { path: "notes.txt" }),
          { ...say("never"), firstChunkDelayMs: 30_000 },
        ],
      }),
    );
    const id = await foldSession();
    const response = await postText(id, "go");
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    // wait until the fold's first step is stored and its second request is out
    while (!modelRequests().some((b) => foldOf(b) === "x" && assistantTurns(b) === 1)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    void reader.cancel().catch(() => undefined);

    // a new process on the same store, the first one gone without a word
    await startProcess();
    const detail = (await (
      await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }))
    ).json()) as { state: { type: string; recoverable?: boolean } };
    expect(detail.state).toMatchObject({ type: "Failed", recoverable: true });
    const [fold] = await listFolds(id);
    expect(fold).toMatchObject({ status: "forced", reason: "crash" });
    expect(fold?.message).toContain("[fold forced to return: crash;");
    // its stored steps survive, and gave the partial result
    expect(fold?.steps.map((s) => s.body.message_type)).toEqual([
      "text",
      "tool_request",
      "tool_result",
    ]);
    expect(fold?.message).toContain("alpha");

    const resumed = await resume.POST(
      jsonRequest("POST", `/api/sessions/${id}/resume`),
      params({ id }),
    );
    expect(finalState(await readSse(resumed))).toBe("Idle");
    const parentNext = modelRequests().at(-1)!;
    expect(foldOf(parentNext)).toBe("parent");
    expect(toolResults(parentNext)).toEqual([
      { text: expect.stringContaining("[fold forced to return: crash;"), isError: false },
    ]);
  });

  it("a crash while a fold's call waits: the call still waits, is approved after it and runs once", async () => {
    const startProcess = processOnOneStore();
    await startProcess();
    server.llm.setScript(
      byFold({
        parent: [
          call("branch", { description: "held", prompt: "MARK:h write" }),
          say("resumed after the crash"),
        ],
        h: [call("write_file", { path: "crash.txt", content: "written once" }), say("never asked")],
      }),
    );
    const id = await heldFoldSession();
    const { seen } = await readUntil(await postText(id, "go"), (events) =>
      events.some((e) => e.event === "fold_tool"),
    );
    const [held] = eventsNamed(seen, "fold_tool");

    // a new process on the same store, the first one gone without a word
    await startProcess();
    const detail = (await (
      await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }))
    ).json()) as { state: { type: string; pending_requests?: string[] } };
    expect(detail.state).toMatchObject({
      type: "AwaitingToolApproval",
      pending_requests: [held?.tool_call_id],
    });
    const [fold] = await listFolds(id);
    expect(fold?.status).toBe("running");
    expect(heldCalls(fold)).toEqual([expect.objectContaining({ approval: "pending" })]);
    expect(existsSync(join(server.workspace, "crash.txt"))).toBe(false);

    const decided = await readSse(await decide(id, String(held?.tool_call_id), "approve"));
    expect(eventsNamed(decided, "error")).toEqual([]);
    expect(eventsNamed(decided, "fold_tool")).toEqual([
      expect.objectContaining({ tool_call_id: held?.tool_call_id, status: "approved" }),
    ]);
    expect(finalState(decided)).toBe("Idle");
    expect(readFileSync(join(server.workspace, "crash.txt"), "utf8")).toBe("written once");
    const [ended] = await listFolds(id);
    expect(ended).toMatchObject({ status: "forced", reason: "crash" });
    expect(heldCalls(ended)).toEqual([
      expect.objectContaining({ approval: "approved", decided_by: expect.anything() }),
    ]);
    // the parent got the fold's result (the call's output in it) and answered
    const parentNext = modelRequests().at(-1)!;
    expect(foldOf(parentNext)).toBe("parent");
    expect(toolResults(parentNext)).toEqual([
      { text: expect.stringContaining("[fold forced to return: crash;"), isError: false },
    ]);
    // a call runs at most once: a second decision is refused
    const late = eventsNamed(
      await readSse(await decide(id, String(held?.tool_call_id), "approve")),
      "error",
    );
    expect(late).toHaveLength(1);
  });

  it("GET /folds needs the token and answers 404 for an unknown session", async () => {
    const id = await createSessionId();
    const anonymous = await folds.GET(
      new Request(`http://localhost/api/sessions/${id}/folds`),
      params({ id }),
    );
    expect(anonymous.status).toBe(401);
    const missing = await folds.GET(
      authedRequest("http://localhost/api/sessions/no-such-session/folds"),
      params({ id: "no-such-session" }),
    );
    expect(missing.status).toBe(404);
    const none = await folds.GET(
      authedRequest(`http://localhost/api/sessions/${id}/folds`),
      params({ id }),
    );
    expect(await none.json()).toEqual({ folds: [] });
  });
});
