import { describe, expect, it } from "vitest";
import { call, collect, harness, say } from "../../../test/support/session-harness.js";
import type { TokenBudget } from "../../llm/token-budget.js";
import type { PersonRef } from "../../model/person.js";
import type { SessionEvent } from "../../protocol/events.js";

// Who decided and who started (issue #25, "authorization that knows it guards an agent"): every
// decision on a tool call is stored with its person (decided_by on the call and in the approval's
// event), every run records who started it (startedBy on its loop record).

const ana: PersonRef = { id: "u-ana", name: "Ana" };
const ben: PersonRef = { id: "u-ben", name: "Ben" };

function callsOf(messages: ReturnType<Awaited<ReturnType<typeof harnessSession>>["messages"]>) {
  return messages.messages.flatMap((m) =>
    m.body.message_type === "tool_request" ? m.body.calls : [],
  );
}

async function harnessSession(script: Parameters<typeof harness>[0]) {
  const h = harness(script);
  return Object.assign(await h.manager.create(), { h });
}

/** the `decisions` of the context_update events that stored decisions (the approval event) */
function decisionsIn(events: readonly SessionEvent[]): Record<string, unknown>[] {
  return events.flatMap((e) =>
    e.name === "context_update" && e.payload.metadata.decisions !== undefined
      ? [e.payload.metadata.decisions as Record<string, unknown>]
      : [],
  );
}

describe("decided_by", () => {
  it("an approval and a denial are stored with the person who decided each", async () => {
    const session = await harnessSession([
      {
        blocks: [
          { type: "toolCall", name: "write_note", arguments: { text: "a" }, id: "w1" },
          { type: "toolCall", name: "write_note", arguments: { text: "b" }, id: "w2" },
        ],
      },
      say("One written."),
    ]);
    await collect(session.sendMessage({ type: "text", text: "write two" }, { by: ana }));
    expect(callsOf(session.messages()).map((c) => c.decided_by ?? null)).toEqual([null, null]);

    const first = await collect(
      session.decideToolCalls([{ tool_call_id: "w1", decision: "approve" }], { by: ana }),
    );
    const second = await collect(
      session.decideToolCalls([{ tool_call_id: "w2", decision: "deny" }], { by: ben }),
    );
    const calls = callsOf(session.messages());
    expect(calls.map((c) => [c.approval, c.decided_by])).toEqual([
      ["approved", ana],
      ["denied", ben],
    ]);
    // the approval event carries it
    expect(decisionsIn(first)).toEqual([
      { w1: { approval: "approved", approval_note: "user", decided_by: ana } },
    ]);
    expect(decisionsIn(second)).toEqual([
      { w2: { approval: "denied", approval_note: "user", decided_by: ben } },
    ]);
    // and the store has it: a fresh load reads the same
    const reloaded = (await session.h.store.loadSession(session.id))!;
    const stored = reloaded.messages.flatMap((m) =>
      m.body.message_type === "tool_request" ? m.body.calls : [],
    );
    expect(stored.map((c) => c.decided_by)).toEqual([ana, ben]);
  });

  it("a call the policy approved has nobody as its decider", async () => {
    const h = harness([call("echo", { text: "x" }, "e1"), say("Done.")]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "go" }, { by: ana }));
    const [only] = callsOf(session.messages());
    expect(only?.approval).toBe("auto_approved");
    expect(only?.decided_by ?? null).toBeNull();
  });

  it("a decision without a person is stored as decided by nobody (null)", async () => {
    const session = await harnessSession([call("write_note", { text: "a" }, "w1"), say("Ok.")]);
    await collect(session.sendMessage({ type: "text", text: "write" }));
    await collect(session.decideToolCalls([{ tool_call_id: "w1", decision: "approve" }]));
    expect(callsOf(session.messages())[0]?.decided_by).toBeNull();
  });
});

describe("startedBy", () => {
  it("every run records who started it: the message's sender, then the decider who continued it", async () => {
    const h = harness([call("write_note", { text: "a" }, "w1"), say("Written.")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "write" }, { by: ana }));
    await collect(
      session.decideToolCalls([{ tool_call_id: "w1", decision: "approve" }], { by: ben }),
    );
    const loops = await h.store.listLoops(session.id);
    expect(loops.map((l) => l.startedBy)).toEqual([ana, ben]);
  });

  it("regenerate, edit and resume record their person too; an operation without one records none", async () => {
    const h = harness([say("First."), say("Second."), say("Third.")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    const answer = session.messages().messages.at(-1);
    await collect(session.regenerate(answer?.id ?? "", { by: ben }));
    const prompt = session.messages().messages.find((m) => m.role === "user");
    await collect(session.editAndResend(prompt?.id ?? "", "hello", { by: ana }));
    const loops = await h.store.listLoops(session.id);
    expect(loops.map((l) => l.startedBy ?? null)).toEqual([null, ben, ana]);
  });
});

/** A TokenBudget in memory: budgets by person id, usage counted per person. */
function memoryBudget(budgets: Record<string, number>) {
  const used = new Map<string, number>();
  const budget: TokenBudget = {
    remaining: async (person) => {
      const monthly = budgets[person.id];
      return monthly === undefined
        ? undefined
        : { monthlyTokens: monthly, usedTokens: used.get(person.id) ?? 0 };
    },
    record: async (person, tokens) => {
      used.set(person.id, (used.get(person.id) ?? 0) + tokens);
    },
  };
  return { budget, used };
}

describe("token budgets", () => {
  it("counts each response against the person the run acts for, and refuses the request that would pass the budget before it is sent", async () => {
    const { budget, used } = memoryBudget({ "u-ana": 1000 });
    const h = harness(
      [
        { ...say("First."), usage: { input: 600, output: 500 } },
        { ...say("Never sent."), usage: { input: 1, output: 1 } },
      ],
      { tokenBudget: budget },
    );
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi" }, { by: ana }));
    expect(used.get("u-ana")).toBe(1100);
    expect(h.provider.requests).toHaveLength(1);

    const events = await collect(session.sendMessage({ type: "text", text: "more" }, { by: ana }));
    // the model never saw the second request
    expect(h.provider.requests).toHaveLength(1);
    const failure = events.flatMap((e) => (e.name === "error" ? [e.payload] : []));
    expect(failure.map((e) => e.message)).toEqual([
      "monthly token budget of 1000 tokens for Ana is used up (1100 used)",
    ]);
    // the run ended cleanly: the prompt is stored, the session rests (recoverable) and its loop
    // record says who started it
    expect(session.state).toMatchObject({ type: "Failed", recoverable: true });
    expect(session.messages().messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const loops = await h.store.listLoops(session.id);
    expect(loops.map((l) => l.startedBy)).toEqual([ana, ana]);
    // another person (no budget) goes on
    await collect(session.resume({ by: ben }));
    expect(h.provider.requests).toHaveLength(2);
    expect(used.get("u-ben")).toBe(2);
  });

  it("refuses a request whose own size would pass what is left", async () => {
    const { budget } = memoryBudget({ "u-ana": 50 });
    const h = harness([say("Never sent.")], { tokenBudget: budget });
    const session = await h.manager.create();
    const events = await collect(
      session.sendMessage({ type: "text", text: "x".repeat(2000) }, { by: ana }),
    );
    expect(h.provider.requests).toHaveLength(0);
    const [failure] = events.flatMap((e) => (e.name === "error" ? [e.payload] : []));
    expect(failure?.message).toMatch(
      /^monthly token budget of 50 tokens for Ana would be exceeded: 0 used, and this request needs about \d+ more$/,
    );
  });

  it("an operation acting for nobody is not held by any budget", async () => {
    const { budget, used } = memoryBudget({ "u-ana": 0 });
    const h = harness([say("Fine.")], { tokenBudget: budget });
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(h.provider.requests).toHaveLength(1);
    expect(used.size).toBe(0);
  });
});
