import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { APP_TOKEN, type ServerProcess } from "../crash/app-server.js";
import { createSession, fakeRequestBodies, resetFake, scriptFake } from "../crash/client.js";
import { readSse, type SseEvent } from "../crash/sse.js";
import { multiInstance } from "./cluster.js";

// Issue #26 finding 5 over HTTP: a call held for a person inside a fold, a sub-agent or an
// ask-N-ways candidate survives the death of the instance running it. Two production servers
// (`next start`) on one throwaway PostgreSQL: A runs the session until the child's call waits,
// A is killed (SIGKILL), and B, reading the session from the database, shows the call still
// waiting; approved through B it runs once (a line appended to a file) and the parent's run goes
// on (./cluster.ts).

const multi = multiInstance({ prefix: "held", env: { ARBOR_SHUTDOWN_GRACE_MS: "3000" } });
const twoInstances = (prepare?: (ws: string) => void) => multi.twoInstances(prepare);

test.beforeEach(async () => {
  await resetFake(multi.fake.url);
});

// Every wait below is bounded and names what it waited for, so a hang fails with its cause (and
// the events seen so far) instead of the test's bare timeout. A request gets REQUEST_MS; a stream
// read to an event, or to its end, STREAM_MS.
const REQUEST_MS = 30_000;
const STREAM_MS = 60_000;

function call(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${APP_TOKEN}`);
  if (init.body !== undefined) headers.set("content-type", "application/json");
  const what = `${init.method ?? "GET"} ${new URL(url).pathname}`;
  return withDeadline(fetch(url, { ...init, headers }), REQUEST_MS, `the answer to ${what}`);
}

/** `promise`, or an error naming `what` after `ms`. */
async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const eventNames = (events: SseEvent[]) => events.map((e) => e.event).join(", ");

/** Reads a stream until `done` holds (or it ends), in the background from then on. */
async function readUntil(response: Response, done: (events: SseEvent[]) => boolean) {
  expect(response.status).toBe(200);
  const events: SseEvent[] = [];
  const stream = readSse(response.body!);
  const deadline = Date.now() + STREAM_MS;
  while (!done(events)) {
    const next = await withDeadline(
      stream.next(),
      Math.max(0, deadline - Date.now()),
      `the awaited event; seen: ${eventNames(events)}`,
    );
    if (next.done) break;
    events.push(next.value);
  }
  void (async () => {
    try {
      for await (const event of stream) events.push(event);
    } catch {
      // the server went away
    }
  })();
  return events;
}

async function readAll(response: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const read = (async () => {
    for await (const event of readSse(response.body!)) events.push(event);
  })();
  await withDeadline(read, STREAM_MS, "the stream's end").catch((error: Error) => {
    throw new Error(`${error.message}; seen: ${eventNames(events)}`);
  });
  return events;
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface State {
  type: string;
  pending_requests?: string[];
}

async function state(app: ServerProcess, id: string): Promise<State> {
  const response = await call(`${app.url}/api/sessions/${id}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { state: State }).state;
}

function decide(app: ServerProcess, id: string, toolCallId: string): Promise<Response> {
  return call(`${app.url}/api/sessions/${id}/approvals`, {
    method: "POST",
    body: JSON.stringify({ decisions: [{ tool_call_id: toolCallId, decision: "approve" }] }),
  });
}

/** A's death, and B seeing the session recovered with `callId` still waiting. */
async function killAndRecover(a: ServerProcess, b: ServerProcess, id: string, callId: string) {
  await a.kill("SIGKILL");
  // the next request on B recovers the session (the lease freed with A's connections)
  await until(async () => (await state(b, id)).type === "AwaitingToolApproval", "recovery on B");
  expect(await state(b, id)).toMatchObject({
    type: "AwaitingToolApproval",
    pending_requests: [callId],
  });
  // nothing ran yet
  expect(runs()).toEqual([]);
}

/** The lines the held bash call appended (it runs once: one line). */
function runs(): string[] {
  try {
    return readFileSync(join(multi.workspace, "runs.txt"), "utf8").trim().split("\n");
  } catch {
    return [];
  }
}

const bash = (id: string) => ({
  blocks: [
    {
      type: "toolCall" as const,
      id,
      name: "bash",
      arguments: { command: "echo ran >> runs.txt && echo NOTE-OK" },
    },
  ],
});
const say = (text: string) => ({ blocks: [{ type: "text" as const, text }] });

/** Approves through B; the decision's stream ends with the parent's run at rest. */
async function approveOnce(b: ServerProcess, id: string, callId: string) {
  const decided = await readAll(await decide(b, id, callId));
  expect(decided.filter((e) => e.event === "error")).toEqual([]);
  expect(runs()).toEqual(["ran"]);
  expect((await state(b, id)).type).toBe("Idle");
  // a call runs at most once: a second decision is refused, nothing runs again
  const again = await decide(b, id, callId);
  const text = await withDeadline(again.text(), STREAM_MS, "the second decision's answer");
  expect(again.status === 409 || text.includes("event: error")).toBe(true);
  expect(runs()).toEqual(["ran"]);
  await expectAudited(b, id);
  return decided;
}

/** The decision is audited like a top-level one: one tool_approved row naming the call. */
async function expectAudited(app: ServerProcess, id: string) {
  const response = await call(`${app.url}/api/audit?action=tool_approved`);
  expect(response.status).toBe(200);
  const { entries } = (await response.json()) as {
    entries: Array<{ target: string; actor_id: string | null; detail: unknown }>;
  };
  expect(entries.filter((e) => e.target === `session:${id}`)).toEqual([
    expect.objectContaining({
      actor_id: "owner",
      detail: { tool_call_id: "call-held", tool: "bash" },
    }),
  ]);
}

/** The text of every tool_result the fake model was last sent. */
async function lastToolResults(): Promise<string> {
  const bodies = (await fakeRequestBodies(multi.fake.url)) as Array<{
    messages: Array<{ content: unknown }>;
  }>;
  return JSON.stringify(bodies.at(-1)?.messages.flatMap((m) => m.content));
}

test("a held call inside a fold survives a restart and is approved after it", async ({
  page,
}, testInfo) => {
  const [a, b] = await twoInstances();
  await scriptFake(multi.fake.url, [
    {
      blocks: [
        {
          type: "toolCall",
          id: "call-branch",
          name: "branch",
          arguments: { description: "append a line", prompt: "Append a line to runs.txt." },
        },
      ],
    },
    bash("call-held"),
    say("the parent goes on"),
  ]);
  const id = await createSession(a.url, "held in a fold", {
    approval_policy: { type: "white_list", tools: ["branch"] },
    folding: { enabled: true },
  });
  const seen = await readUntil(
    await call(`${a.url}/api/sessions/${id}/messages`, {
      method: "POST",
      body: JSON.stringify({ session_id: id, payload: { type: "text", text: "go" } }),
    }),
    (events) => events.some((e) => e.event === "fold_tool"),
  );
  expect(seen.find((e) => e.event === "fold_tool")?.data).toMatchObject({
    tool_call_id: "call-held",
    status: "pending_approval",
  });
  await killAndRecover(a, b, id, "call-held");
  // the fold card's data: the fold still runs, its call pending on its stored row
  const folds = (await (await call(`${b.url}/api/sessions/${id}/folds`)).json()) as {
    folds: Array<{ status: string; steps: Array<{ body: { calls?: unknown[] } }> }>;
  };
  expect(folds.folds[0]?.status).toBe("running");
  expect(JSON.stringify(folds.folds[0]?.steps)).toContain('"approval":"pending"');

  // the chat on B shows the call waiting in the fold card; a person approves it there
  await page.setExtraHTTPHeaders({ authorization: `Bearer ${APP_TOKEN}` });
  await page.goto(`${b.url}/sessions/${id}`);
  const card = page.getByRole("region", { name: "Fold: append a line" });
  const waiting = card.getByRole("region", { name: "Waiting for approval in fold append a line" });
  const held = waiting.getByRole("listitem", { name: "Tool call bash" });
  await expect(held).toHaveAttribute("data-approval", "pending");
  await expect(card).toContainText("Running");
  await page.screenshot({ path: testInfo.outputPath("fold-call-waiting-after-restart.png") });
  await held.getByRole("button", { name: "Approve" }).click();
  await expect(
    page.locator('section[aria-label="Transcript"] article[aria-label="Assistant message"]').last(),
  ).toContainText("the parent goes on");
  await expect(card).toContainText("Forced");
  await page.screenshot({ path: testInfo.outputPath("fold-call-approved-after-restart.png") });
  await until(async () => (await state(b, id)).type === "Idle", "the parent's run to end");
  expect(runs()).toEqual(["ran"]);
  // the approval is stored with who decided, on the fold's row
  const decided = (await (await call(`${b.url}/api/sessions/${id}/folds`)).json()) as {
    folds: Array<{ status: string; reason: string | null; steps: unknown[] }>;
  };
  expect(decided.folds[0]).toMatchObject({ status: "forced", reason: "crash" });
  expect(JSON.stringify(decided.folds[0]?.steps)).toMatch(
    /"approval":"approved"[^}]*"decided_by":\{"id":/,
  );
  // the fold ended with the call's output in its result, which the parent's model was sent
  expect(await lastToolResults()).toContain("NOTE-OK");
  // a call runs at most once: a second decision is refused, nothing runs again
  const again = await decide(b, id, "call-held");
  const text = await withDeadline(again.text(), STREAM_MS, "the second decision's answer");
  expect(again.status === 409 || text.includes("event: error")).toBe(true);
  expect(runs()).toEqual(["ran"]);
  await expectAudited(b, id);
});

test("a held call inside a sub-agent survives a restart and is approved after it", async () => {
  const [a, b] = await twoInstances((ws) => {
    mkdirSync(join(ws, ".arbor", "agents"), { recursive: true });
    writeFileSync(
      join(ws, ".arbor", "agents", "scribe.md"),
      "---\nname: scribe\ndescription: Appends lines\ntools: Bash\n---\nYou append lines.\n",
    );
  });
  await scriptFake(multi.fake.url, [
    {
      blocks: [
        { type: "toolCall", id: "call-agent", name: "scribe", arguments: { task: "append" } },
      ],
    },
    bash("call-held"),
    say("the parent goes on"),
  ]);
  const id = await createSession(a.url, "held in a sub-agent", {
    approval_policy: { type: "white_list", tools: ["scribe"] },
  });
  const isHeld = (e: SseEvent) =>
    e.event === "subagent_update" && (e.data as { kind?: string }).kind === "approval";
  await readUntil(
    await call(`${a.url}/api/sessions/${id}/messages`, {
      method: "POST",
      body: JSON.stringify({ session_id: id, payload: { type: "text", text: "go" } }),
    }),
    (events) => events.some(isHeld),
  );
  await killAndRecover(a, b, id, "call-held");
  const decided = await approveOnce(b, id, "call-held");
  expect(decided.find(isHeld)?.data).toMatchObject({
    call_id: "call-held",
    status: "approved",
    decided_by: expect.objectContaining({ id: expect.any(String) }),
  });
  expect(await lastToolResults()).toContain("NOTE-OK");
});

test("a held call inside an ask-N-ways candidate survives a restart and is approved after it", async () => {
  const [a, b] = await twoInstances();
  // whichever candidate asks first calls bash (held), the other answers at once
  await scriptFake(multi.fake.url, [
    bash("call-held"),
    say("the other way"),
    say("the answer goes on"),
  ]);
  const id = await createSession(a.url, "held in a candidate", {
    approval_policy: { type: "manual" },
  });
  await readUntil(
    await call(`${a.url}/api/sessions/${id}/messages/parallel`, {
      method: "POST",
      body: JSON.stringify({
        session_id: id,
        payload: { type: "text", text: "go" },
        candidates: [{ label: "one" }, { label: "two" }],
        judge: { strategy: "pick_first" },
      }),
    }),
    (events) =>
      events.some(
        (e) =>
          e.event === "candidate_tool" &&
          (e.data as { status?: string }).status === "pending_approval",
      ),
  );
  await killAndRecover(a, b, id, "call-held");
  const decided = await approveOnce(b, id, "call-held");
  expect(decided.find((e) => e.event === "candidate_tool")?.data).toMatchObject({
    tool_call_id: "call-held",
    status: "approved",
  });
  expect(await lastToolResults()).toContain("NOTE-OK");
  // the restart's notice, then the candidate's call and its result continue the active branch
  const messages = (await (await call(`${b.url}/api/sessions/${id}/messages`)).json()) as {
    messages: Array<{ body: { message_type: string; text?: string } }>;
  };
  expect(messages.messages.map((m) => m.body.message_type)).toEqual([
    "text",
    "system_control",
    "tool_request",
    "tool_result",
    "text",
  ]);
});
