import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionEvent } from "@arbor/core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { heldFoldScript, type Instance, slowAnswer, startInstance } from "./fixtures/instance.js";
import { pgAvailable, testDatabases } from "./stores.js";

// Several app instances on one PostgreSQL (issue #17): each instance has its own store pool,
// coordinator connections and SessionManager. Checked through the Session API the routes call.

const here = dirname(fileURLToPath(import.meta.url));
const say = (text: string) => ({ blocks: [{ type: "text" as const, text }] });
const callCount = (id: string) => ({
  blocks: [{ type: "toolCall" as const, id, name: "count", arguments: {} }],
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Collects a stream's events in the background; `stop` ends it. */
function watch(events: AsyncIterable<SessionEvent>) {
  const seen: SessionEvent[] = [];
  const iterator = events[Symbol.asyncIterator]();
  const done = (async () => {
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      seen.push(next.value);
    }
  })();
  return {
    seen,
    async stop() {
      await iterator.return?.();
      await done;
    },
  };
}

function stateOf(event: SessionEvent): string | undefined {
  return event.name === "context_update" ? event.payload.current_state.type : undefined;
}

/**
 * Waits until `events` show `eventName` with a call pending approval, then approves call `c1`
 * through instance `on`: the decision's result and the (name, status) of the events it gave.
 */
async function approveThrough(
  on: Instance,
  sessionId: string,
  events: { seen: SessionEvent[] },
  eventName: "candidate_tool" | "fold_tool",
) {
  const statusOf = (e: SessionEvent) => (e.payload as { status?: string }).status;
  await until(
    () => events.seen.some((e) => e.name === eventName && statusOf(e) === "pending_approval"),
    `a ${eventName} call to wait`,
  );
  const session = await on.manager.get(sessionId);
  // decided by a person (issue #25): the instance running the session stores who
  const decision = session!.decideToolCalls([{ tool_call_id: "c1", decision: "approve" }], {
    by: { id: "u-ana", name: "Ana" },
  });
  const decided: Array<[string, string | undefined, string | undefined]> = [];
  for await (const event of decision) {
    const by = (event.payload as { decided_by?: { name: string } }).decided_by;
    decided.push([event.name, statusOf(event), by?.name]);
  }
  return { result: await decision.result, decided };
}

describe.skipIf(!pgAvailable())("several instances on one PostgreSQL", () => {
  const databases = testDatabases("postgresql");
  const instances: Instance[] = [];
  /** instance processes a test started: killed after it, whatever its outcome */
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    for (const instance of instances.splice(0)) await instance.close();
  });
  afterAll(() => databases.dispose());

  async function two(scriptA: Parameters<typeof startInstance>[2], scriptB = scriptA) {
    const url = await databases.fresh();
    const a = await startInstance("A", url, scriptA);
    const b = await startInstance("B", url, scriptB);
    instances.push(a, b);
    return { url, a, b };
  }

  it("a watcher on B sees every event of a stream on A, live, in order, without a gap", async () => {
    const { a, b } = await two([slowAnswer(60, 3)], []);
    const onA = await a.manager.create();
    const onB = await b.manager.get(onA.id);
    const watcher = watch(onB!.events(0));
    const run = onA.sendMessage({ type: "text", text: "hello" });
    const own = watch(run);
    expect((await run.result).ok).toBe(true);
    await until(() => watcher.seen.at(-1)?.sequence === onA.lastSequence, "B to catch up");
    await own.stop();
    await watcher.stop();
    const sequences = watcher.seen.map((event) => event.sequence);
    expect(sequences).toEqual(Array.from({ length: onA.lastSequence }, (_, i) => i + 1));
    expect(watcher.seen.filter((event) => event.name === "content_delta").length).toBeGreaterThan(
      50,
    );
    // B's reads reflect the database, not what it saw first
    const again = await b.manager.get(onA.id);
    expect(again!.messages().messages.map((m) => m.role)).toEqual(
      onA.messages().messages.map((m) => m.role),
    );
  });

  it("a reconnect to B replays from Last-Event-ID and goes on live", async () => {
    const { a, b } = await two([slowAnswer(40, 5)], []);
    const onA = await a.manager.create();
    const first = watch(onA.events(0));
    const run = onA.sendMessage({ type: "text", text: "hello" });
    await until(() => first.seen.length >= 8, "some events on A");
    await first.stop();
    const lastSeen = first.seen.at(-1)!.sequence;
    const onB = await b.manager.get(onA.id);
    const second = watch(onB!.events(lastSeen));
    await run.result;
    await until(() => second.seen.at(-1)?.sequence === onA.lastSequence, "B to catch up");
    await second.stop();
    const all = [...first.seen, ...second.seen].map((event) => event.sequence);
    expect(all).toEqual(Array.from({ length: onA.lastSequence }, (_, i) => i + 1));
  });

  it("sends through A and B at once: B's message is queued on A and delivered by its run, in order; an operation through B is refused (409)", async () => {
    const { a, b } = await two([slowAnswer(400, 10), say("second answer")], []);
    const onA = await a.manager.create();
    const runA = onA.sendMessage({ type: "text", text: "one" });
    const watcher = watch(onA.events(0));
    await until(() => watcher.seen.some((e) => e.name === "content_delta"), "A streaming");
    const onB = await b.manager.get(onA.id);
    // B did not "recover" A's session as crashed while A answers
    expect(onB!.state.type).toBe("StreamingLLMResponse");
    // an operation that cannot join A's run is refused: another instance runs the session
    const refused = await onB!.resume().result;
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.code).toBe("invalid_transition");
    expect(!refused.ok && refused.error.message).toMatch(/busy on another instance/);
    // a text message joins it: stored as queued by A, as on one instance
    const sent = onB!.sendMessage({ type: "text", text: "two" });
    const sentEvents: SessionEvent[] = [];
    for await (const event of sent) sentEvents.push(event);
    const queued = await sent.result;
    expect(queued).toEqual({ ok: true, value: { type: "not_run", reason: "queued" } });
    expect(
      sentEvents.map((e) =>
        e.name === "context_update" ? e.payload.message_update?.kind : e.name,
      ),
    ).toEqual(["queued"]);
    expect((await runA.result).ok).toBe(true);
    // A's run delivers it as the next prompt, and its model sees every earlier message
    await until(
      () => watcher.seen.filter((e) => stateOf(e) === "Idle").length >= 2,
      "A to answer the queued message",
    );
    await watcher.stop();
    expect(a.provider.requests.at(-1)?.messages.length).toBe(3);
    expect(b.provider.requests).toHaveLength(0);
    const stored = await b.created.store.loadSession(onA.id);
    const branch = stored!.branches.find((br) => br.id === stored!.session.active_branch_id)!;
    const texts = branch.message_ids.map((id) => {
      const body = stored!.messages.find((m) => m.id === id)?.body as { text?: string };
      return body?.text ?? "?";
    });
    expect(texts).toEqual(["one", "abcd".repeat(400), "two", "second answer"]);
    expect(stored!.session.state.type).toBe("Idle");
  });

  it("an approval decided through B runs the tool once, and A's second decision is refused", async () => {
    const { a, b } = await two([callCount("c1")], [say("done")]);
    const onA = await a.manager.create();
    await onA.sendMessage({ type: "text", text: "count" }).result;
    expect(onA.state.type).toBe("AwaitingToolApproval");
    // both instances read the pending approval, then both decide at once
    const onB = await b.manager.get(onA.id);
    const onA2 = await a.manager.get(onA.id);
    const decisions = [{ tool_call_id: "c1", decision: "approve" as const }];
    const [fromB, fromA] = await Promise.all([
      onB!.decideToolCalls(decisions).result,
      onA2!.decideToolCalls(decisions).result,
    ]);
    expect(a.toolRuns() + b.toolRuns()).toBe(1);
    expect([fromA.ok, fromB.ok].filter(Boolean)).toHaveLength(1);
    // later, again through A: still not pending
    const later = await (await a.manager.get(onA.id))!.decideToolCalls(decisions).result;
    expect(later.ok).toBe(false);
    expect(a.toolRuns() + b.toolRuns()).toBe(1);
  });

  it("a call an ask-N-ways candidate waits on in A's run is decided through B: it runs once, on A", async () => {
    // candidate "zero" calls `count` and then answers; candidate "one" answers at once
    const script = (request: { body: unknown }) => {
      const sent = JSON.stringify(request.body);
      if (!sent.includes("zero")) return say("one");
      return sent.includes("run 1 on A") ? say("counted") : callCount("c1");
    };
    const { a, b } = await two(script, script);
    const onA = await a.manager.create({ config: { approval_policy: { type: "manual" } } });
    const group = onA.askParallel({
      session_id: onA.id,
      payload: { type: "text", text: "count" },
      candidates: [{ system_prompt: "zero" }, { system_prompt: "one" }],
      judge: { strategy: "pick_first" },
    });
    const events = watch(group);
    const { result, decided } = await approveThrough(b, onA.id, events, "candidate_tool");
    expect(result.ok).toBe(true);
    expect(decided).toEqual([["candidate_tool", "approved", "Ana"]]);
    expect((await group.result).ok).toBe(true);
    await events.stop();
    expect([a.toolRuns(), b.toolRuns()]).toEqual([1, 0]);
    const finished = events.seen.filter((e) => e.name === "candidate_finished");
    expect(finished.map((e) => (e.payload as { text?: string }).text).sort()).toEqual([
      "counted",
      "one",
    ]);
    // decided again through B, now that nothing runs: refused, and the tool does not run again
    const again = await (await b.manager.get(onA.id))!.decideToolCalls([
      { tool_call_id: "c1", decision: "approve" },
    ]).result;
    expect(again.ok).toBe(false);
    expect([a.toolRuns(), b.toolRuns()]).toEqual([1, 0]);
  });

  it("a call waiting inside a fold of A's run is approved through B: it runs once, on A, and the fold returns", async () => {
    const call = (id: string, name: string, args: Record<string, unknown>) => ({
      blocks: [{ type: "toolCall" as const, id, name, arguments: args }],
    });
    // the parent folds; the fold counts (held for a person), then returns
    const script = (request: { body: unknown }) => {
      const sent = JSON.stringify(request.body);
      if (sent.includes("counted it")) return say("done");
      if (sent.includes("run 1 on A")) return call("r1", "return", { message: "counted it" });
      if (sent.includes("count once")) return call("c1", "count", {});
      return call("b1", "branch", { description: "count", prompt: "count once" });
    };
    const { a, b } = await two(script, script);
    const onA = await a.manager.create({
      config: { approval_policy: { type: "manual" }, folding: { enabled: true } },
    });
    // the parent's own `branch` call needs approval too: approved on A first
    await onA.sendMessage({ type: "text", text: "please fold" }).result;
    expect(onA.state.type).toBe("AwaitingToolApproval");
    const run = onA.decideToolCalls([{ tool_call_id: "b1", decision: "approve" }]);
    const events = watch(run);
    const { result, decided } = await approveThrough(b, onA.id, events, "fold_tool");
    expect(result.ok).toBe(true);
    expect(decided).toEqual([["fold_tool", "approved", "Ana"]]);
    expect((await run.result).ok).toBe(true);
    await events.stop();
    expect([a.toolRuns(), b.toolRuns()]).toEqual([1, 0]);
    expect(events.seen.some((e) => e.name === "fold_returned")).toBe(true);
    expect(onA.state.type).toBe("Idle");
  });

  it("a call held inside a fold survives the owner's death (kill -9): B shows it waiting, approves it, it runs once", async () => {
    const url = await databases.fresh();
    const b = await startInstance("B", url, heldFoldScript);
    instances.push(b);
    const session = await b.manager.create({
      config: {
        approval_policy: { type: "white_list", tools: ["branch"] },
        folding: { enabled: true },
      },
    });
    const child = spawn(
      process.execPath,
      [
        "--conditions=@arbor/source",
        "--import",
        "tsx",
        join(here, "fixtures", "instance-held-fold.ts"),
        url,
        session.id,
      ],
      { cwd: join(here, ".."), stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    await until(() => {
      if (child.exitCode !== null) throw new Error(`instance A ended: ${err}`);
      return out.includes("held");
    }, "A's fold call to wait");
    child.kill("SIGKILL");
    await exited;
    await until(async () => (await b.coordinator.tryLease(session.id)).valueOf(), "the lease");
    await b.coordinator.release(session.id);
    // B recovers the session from the database: the call still waits, nothing ran
    const recovered = await b.manager.get(session.id);
    expect(recovered!.state).toEqual({
      type: "AwaitingToolApproval",
      pending_requests: ["c1"],
      tool_names: ["count"],
    });
    const [fold] = await recovered!.folds();
    expect(fold?.status).toBe("running");
    const decision = recovered!.decideToolCalls([{ tool_call_id: "c1", decision: "approve" }], {
      by: { id: "u-ana", name: "Ana" },
    });
    const decided: Array<[string, string | undefined, string | undefined]> = [];
    for await (const event of decision) {
      const payload = event.payload as { status?: string; decided_by?: { name: string } };
      if (event.name === "fold_tool")
        decided.push([event.name, payload.status, payload.decided_by?.name]);
    }
    expect((await decision.result).ok).toBe(true);
    expect(decided).toEqual([["fold_tool", "approved", "Ana"]]);
    expect(b.toolRuns()).toBe(1);
    expect(recovered!.state.type).toBe("Idle");
    expect(recovered!.messages().messages.at(-1)?.body).toMatchObject({
      text: "parent saw the count",
    });
    // the approval is in tool_approvals with who decided; a second decision runs nothing
    const stored = await b.created.store.loadSession(session.id);
    const request = stored!.messages.find(
      (m) => m.meta?.fold_id !== undefined && m.body.message_type === "tool_request",
    );
    expect(request?.body).toMatchObject({
      calls: [{ id: "c1", approval: "approved", decided_by: { id: "u-ana", name: "Ana" } }],
    });
    const again = await recovered!.decideToolCalls([{ tool_call_id: "c1", decision: "approve" }])
      .result;
    expect(again.ok).toBe(false);
    expect(b.toolRuns()).toBe(1);
  });

  it("config changes through A and B apply field by field: neither overwrites the other", async () => {
    const { a, b } = await two([], []);
    const onA = await a.manager.create();
    const onB = await b.manager.get(onA.id);
    expect((await onB!.updateConfig({ system_prompt: "from B" }).result).ok).toBe(true);
    // A's object was read before B's change: it reads the session again under the lease
    expect((await onA.updateConfig({ agent_mode: "plan" }).result).ok).toBe(true);
    const stored = await a.created.store.loadSession(onA.id);
    expect(stored!.session.config.system_prompt).toBe("from B");
    expect(stored!.session.config.agent_mode).toBe("plan");
  });

  it("a merge left pending through A is resolved through B (pending merges are stored)", async () => {
    const { a, b } = await two([say("one"), say("three"), say("two")], []);
    const onA = await a.manager.create();
    await onA.sendMessage({ type: "text", text: "a" }).result;
    const main = onA.activeBranchId;
    const one = onA.messages().messages[1]!.id;
    await onA.createBranch({ from_message_id: one, name: "alt" }).result;
    const alt = onA.activeBranchId;
    await onA.sendMessage({ type: "text", text: "c" }).result;
    await onA.switchBranch(main).result;
    await onA.sendMessage({ type: "text", text: "b" }).result;
    const planned = await onA.merge({
      source_branch_id: alt,
      target_branch_id: main,
      strategy: "rebase",
    }).result;
    expect(planned.ok && planned.value.status).toBe("conflicts");
    const merge = onA.pendingMerges[0]!;

    const onB = await b.manager.get(onA.id);
    expect(onB!.pendingMerges.map((m) => m.merge_id)).toEqual([merge.merge_id]);
    const conflicts = merge.strategy === "rebase" ? merge.conflicts : [];
    const resolved = await onB!.resolveMerge(merge.merge_id, {
      action: "resolve",
      resolutions: conflicts.map((c) => ({ conflict_id: c.conflict_id, resolution: "keep_both" })),
    }).result;
    expect(resolved.ok && resolved.value.status).toBe("merged");
    // A reads the session again before it acts: the merge is no longer pending there either
    const again = await onA.resolveMerge(merge.merge_id, { action: "cancel" }).result;
    expect(again.ok).toBe(false);
    const stored = await a.created.store.loadSession(onA.id);
    expect(stored!.session.pending_merges).toBeUndefined();
  });

  it("an interrupt through B stops A's run", async () => {
    const { a, b } = await two([slowAnswer(3000, 10)], []);
    const onA = await a.manager.create();
    const runA = onA.sendMessage({ type: "text", text: "long" });
    const watcher = watch(onA.events(0));
    await until(() => watcher.seen.some((e) => e.name === "content_delta"), "A streaming");
    await watcher.stop();
    const onB = await b.manager.get(onA.id);
    const seen: SessionEvent[] = [];
    for await (const event of onB!.interrupt()) seen.push(event);
    expect(seen.map(stateOf).filter(Boolean).at(-1)).toBe("Paused");
    const resultA = await runA.result;
    expect(resultA.ok).toBe(true);
    expect(onA.state).toMatchObject({ type: "Paused" });
    // the partial answer is kept, marked incomplete
    const answer = onA.messages().messages.find((m) => m.role === "assistant");
    expect(answer?.status).toBe("incomplete");
  });

  it("the owner killed with -9 mid-answer: B recovers the session and carries on", async () => {
    const url = await databases.fresh();
    const b = await startInstance("B", url, [say("after the crash")]);
    instances.push(b);
    const session = await b.manager.create();
    const child = spawn(
      process.execPath,
      [
        "--conditions=@arbor/source",
        "--import",
        "tsx",
        join(here, "fixtures", "instance-run.ts"),
        url,
        session.id,
      ],
      { cwd: join(here, ".."), stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    await until(() => {
      if (child.exitCode !== null) throw new Error(`instance A ended: ${err}`);
      return out.includes("streaming");
    }, "A to stream");
    // while A answers, B neither recovers nor runs anything; a message sent through B is queued
    // by A (acknowledged)
    const busy = await b.manager.get(session.id);
    expect(busy!.state.type).toBe("StreamingLLMResponse");
    expect((await busy!.resume().result).ok).toBe(false);
    expect(await busy!.sendMessage({ type: "text", text: "meanwhile" }).result).toEqual({
      ok: true,
      value: { type: "not_run", reason: "queued" },
    });
    child.kill("SIGKILL");
    await exited;
    // the lease freed with A's connection: the next request on B recovers, then runs
    await until(async () => (await b.coordinator.tryLease(session.id)).valueOf(), "the lease");
    await b.coordinator.release(session.id);
    const recovered = await b.manager.get(session.id);
    expect(recovered!.state.type).toBe("Idle");
    const partial = recovered!.messages().messages.find((m) => m.role === "assistant");
    expect(partial?.status).toBe("incomplete");
    // nothing acknowledged is lost: the queued message is still there
    const queued = recovered!.messages().queued.map((m) => (m.body as { text?: string }).text);
    expect(queued).toEqual(["meanwhile"]);
    const next = await recovered!.sendMessage({ type: "text", text: "second question" }).result;
    expect(next.ok).toBe(true);
    // the model saw the first question (and what was kept of the answer) before the second
    const texts = JSON.stringify(b.provider.requests[0]?.messages);
    expect(texts).toContain("first question");
    expect(texts).toContain("second question");
    // and the queued message reaches the model too (steering: with that run, at its start)
    expect(texts).toContain("meanwhile");
    const after = await b.manager.get(session.id);
    expect(after!.messages().queued).toEqual([]);
  });
});
