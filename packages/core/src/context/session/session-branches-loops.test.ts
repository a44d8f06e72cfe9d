import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  errors,
  harness,
  say,
  states,
} from "../../../test/support/session-harness.js";
import type { SessionEvent } from "../../protocol/events.js";
import type { MergeReport } from "./index.js";
import type { Session } from "./session.js";

// Branch merging and deletion inside a session (context-manager "Branch Merging": append,
// cherry-pick, rebase, conflict detection, post-merge validation), approvals that are remembered,
// and the loop records a run leaves in the store.

function texts(session: Session, branchId?: string): string[] {
  return session
    .messages(branchId ? { branchId } : {})
    .messages.map((m) => (m.body.message_type === "text" ? m.body.text : m.body.message_type));
}

/** The merge report: the metadata of the operation's last context_update. */
function report(events: readonly SessionEvent[]): MergeReport {
  const last = events.findLast((e) => e.name === "context_update");
  if (last?.name !== "context_update") throw new Error("no context_update");
  return last.payload.metadata as unknown as MergeReport;
}

/**
 * main: a, one, b, two; fork "alt" from "one": a, one, c, <echo request>, <echo result>, three.
 * Ends on main.
 */
async function diverged() {
  const h = harness([say("one"), call("echo", { text: "x" }, "e1"), say("three"), say("two")]);
  const session = await h.manager.create({
    config: { approval_policy: { type: "auto_approve_all" } },
  });
  await collect(session.sendMessage({ type: "text", text: "a" }));
  const main = session.activeBranchId;
  const one = session.messages().messages[1]!.id;
  await collect(session.createBranch({ from_message_id: one, name: "alt" }));
  const alt = session.activeBranchId;
  await collect(session.sendMessage({ type: "text", text: "c" }));
  await collect(session.switchBranch(main));
  await collect(session.sendMessage({ type: "text", text: "b" }));
  return { h, session, main, alt };
}

describe("Branch Merging in a session", () => {
  it("simple append merge: the source's new messages appended, duplicates skipped, order kept", async () => {
    const { session, main, alt } = await diverged();
    const events = await collect(
      session.merge({ source_branch_id: alt, target_branch_id: main, strategy: "append" }),
    );
    expect(states(events)).toEqual(["Merging", "Idle"]);
    expect(events.every((e) => e.sequence > 0)).toBe(true);
    const merged = report(events);
    expect(merged.status).toBe("merged");
    expect(merged.status === "merged" && merged.warnings).toEqual([]);
    expect(texts(session, main)).toEqual([
      "a",
      "one",
      "b",
      "two",
      "c",
      "tool_request",
      "tool_result",
      "three",
    ]);
  });

  it("cherry-pick merge with a missing dependency: needs confirmation, then proceed or cancel", async () => {
    const { session, main, alt } = await diverged();
    const result = session
      .messages({ branchId: alt })
      .messages.find((m) => m.body.message_type === "tool_result")!;
    const asked = await collect(
      session.merge({
        source_branch_id: alt,
        target_branch_id: main,
        strategy: "cherry_pick",
        message_ids: [result.id],
      }),
    );
    // no branch changed and no state moved; the pending merge is stored with its event
    expect(states(asked)).toEqual([]);
    expect(asked.map((e) => e.sequence)).toEqual([session.lastSequence]);
    expect(texts(session, main)).toEqual(["a", "one", "b", "two"]);
    const pending = report(asked);
    expect(pending.status).toBe("needs_confirmation");
    expect(pending.status === "needs_confirmation" && pending.warnings).toMatchObject([
      { kind: "missing_tool_request", message_id: result.id },
    ]);
    expect(session.pendingMerges.map((m) => m.merge_id)).toEqual([pending.merge_id]);
    // cancel: the target stays as it was
    const cancelled = await collect(session.resolveMerge(pending.merge_id, { action: "cancel" }));
    expect(report(cancelled)).toEqual({ merge_id: pending.merge_id, status: "cancelled" });
    expect(texts(session, main)).toEqual(["a", "one", "b", "two"]);
    expect(session.pendingMerges).toEqual([]);
    // ask again, proceed with the dependency: request and result arrive together, in order
    const again = report(
      await collect(
        session.merge({
          source_branch_id: alt,
          target_branch_id: main,
          strategy: "cherry_pick",
          message_ids: [result.id],
        }),
      ),
    );
    const proceeded = await collect(
      session.resolveMerge(again.merge_id, { action: "proceed", include_dependencies: true }),
    );
    expect(states(proceeded)).toEqual(["Merging", "Idle"]);
    expect(report(proceeded).status).toBe("merged");
    expect(texts(session, main)).toEqual(["a", "one", "b", "two", "tool_request", "tool_result"]);
  });

  it("a pending merge is stored: a restarted server (a new manager on the same store) resolves it", async () => {
    const { h, session, main, alt } = await diverged();
    const planned = report(
      await collect(
        session.merge({ source_branch_id: alt, target_branch_id: main, strategy: "rebase" }),
      ),
    );
    expect(planned.status).toBe("conflicts");
    const stored = await h.store.loadSession(session.id);
    expect(stored?.session.pending_merges?.map((m) => m.merge_id)).toEqual([planned.merge_id]);

    const restarted = harness([], { store: h.store });
    const again = await restarted.manager.get(session.id);
    expect(again?.pendingMerges.map((m) => m.merge_id)).toEqual([planned.merge_id]);
    const conflicts = planned.status === "conflicts" ? planned.conflicts : [];
    const resolved = await collect(
      again!.resolveMerge(planned.merge_id, {
        action: "resolve",
        resolutions: conflicts.map((c) => ({
          conflict_id: c.conflict_id,
          resolution: "keep_both" as const,
        })),
      }),
    );
    expect(report(resolved).status).toBe("merged");
    expect(again?.pendingMerges).toEqual([]);
    expect((await h.store.loadSession(session.id))?.session.pending_merges).toBeUndefined();
  });

  it("rebase merge with a conflict: reported, not completed until resolved, then validated", async () => {
    const { session, main, alt } = await diverged();
    const before = texts(session, main);
    const planned = await collect(
      session.merge({ source_branch_id: alt, target_branch_id: main, strategy: "rebase" }),
    );
    expect(states(planned)).toEqual([]);
    const conflicted = report(planned);
    expect(conflicted.status).toBe("conflicts");
    const conflicts = conflicted.status === "conflicts" ? conflicted.conflicts : [];
    expect(conflicts).toMatchObject([{ kind: "divergent_continuation" }]);
    const conflict = conflicts[0] as {
      conflict_id: string;
      timestamps: unknown[];
      suggested_resolutions: unknown[];
    };
    expect(conflict.timestamps.length).toBeGreaterThan(0);
    expect(conflict.suggested_resolutions.length).toBeGreaterThan(0);
    // not completed: the target is unchanged while the conflict is open
    expect(texts(session, main)).toEqual(before);
    const resolved = await collect(
      session.resolveMerge(conflicted.merge_id, {
        action: "resolve",
        resolutions: [{ conflict_id: conflict.conflict_id, resolution: "keep_both" }],
      }),
    );
    expect(states(resolved)).toEqual(["Merging", "Idle"]);
    const done = report(resolved);
    expect(done.status).toBe("merged");
    // post-merge validation found nothing wrong, and the stored branch is the merged one
    expect(done.status === "merged" && done.warnings).toEqual([]);
    expect(texts(session, main)).toEqual([
      "a",
      "one",
      "b",
      "two",
      "c",
      "tool_request",
      "tool_result",
      "three",
    ]);
    const branch = session.branches.find((b) => b.id === main)!;
    expect(
      branch.message_ids.every((id) => session.messages().messages.some((m) => m.id === id)),
    ).toBe(true);
    expect(branch.merged_from.at(-1)?.strategy).toBe("rebase");
  });

  it("deleteBranch: the active branch is refused; another is deleted and the change stored", async () => {
    const { h, session, main, alt } = await diverged();
    const refused = await collect(session.deleteBranch(main));
    expect(errors(refused).map((e) => e.code)).toEqual(["invalid_request"]);
    expect(session.branches.map((b) => b.id).sort()).toEqual([alt, main].sort());
    const deleted = await collect(session.deleteBranch(alt));
    expect(errors(deleted)).toEqual([]);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.sequence).toBeGreaterThan(0);
    expect(deleted[0]).toMatchObject({
      name: "context_update",
      payload: { metadata: { branch_deleted: alt } },
    });
    expect(session.branches.map((b) => b.id)).toEqual([main]);
    const stored = await h.store.loadSession(session.id);
    expect(stored?.branches.map((b) => b.id)).toEqual([main]);
    const replayed = await h.store.readEvents(session.id, deleted[0]!.sequence - 1);
    expect(replayed.map((e) => e.sequence)).toEqual([deleted[0]!.sequence]);
  });
});

describe("Approvals", () => {
  it("remember on a manual approval: white_list with that tool, persisted, the next call runs without asking", async () => {
    const h = harness([
      call("write_note", { text: "1" }, "w1"),
      say("Wrote one."),
      call("write_note", { text: "2" }, "w2"),
      say("Wrote two."),
    ]);
    const session = await h.manager.create();
    expect(session.config.approval_policy).toEqual({ type: "manual" });
    const first = await collect(session.sendMessage({ type: "text", text: "write 1" }));
    expect(states(first).at(-1)).toBe("AwaitingToolApproval");
    await collect(
      session.decideToolCalls([{ tool_call_id: "w1", decision: "approve", remember: true }]),
    );
    expect(session.config.approval_policy).toEqual({ type: "white_list", tools: ["write_note"] });
    const stored = await h.store.loadSession(session.id);
    expect(stored?.session.config.approval_policy).toEqual({
      type: "white_list",
      tools: ["write_note"],
    });
    const second = await collect(session.sendMessage({ type: "text", text: "write 2" }));
    expect(states(second)).not.toContain("AwaitingToolApproval");
    expect(states(second)).toContain("ExecutingTool");
    expect(states(second).at(-1)).toBe("Idle");
    const request = session
      .messages()
      .messages.filter((m) => m.body.message_type === "tool_request")
      .at(-1)!;
    expect(request.body.message_type === "tool_request" && request.body.calls[0]?.approval).toBe(
      "auto_approved",
    );
  });
});

describe("Loop records", () => {
  it("a run leaves its loop in the store: completed, with usage and turns", async () => {
    const h = harness([call("echo", { text: "x" }), say("Done.")]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "go" }));
    const loops = await h.store.listLoops(session.id);
    expect(loops).toHaveLength(1);
    const [loop] = loops;
    expect(loop).toMatchObject({ sessionId: session.id, agentId: "arbor", status: "completed" });
    expect(loop?.turns).toBe(2);
    expect(loop?.usage.output).toBeGreaterThan(0);
    expect(loop?.parentLoopId).toBeUndefined();
    // every assistant row names the loop that wrote it
    const assistant = session.messages().messages.filter((m) => m.role === "assistant");
    expect(assistant.map((m) => m.meta?.loop_id)).toEqual([loop?.loopId, loop?.loopId]);
  });

  it("a continuation after an approval decision is a child loop of the one that stopped", async () => {
    const h = harness([call("write_note", { text: "a" }, "w1"), say("Written.")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "write" }));
    const [first] = await h.store.listLoops(session.id);
    expect(first?.status).toBe("completed");
    await collect(session.decideToolCalls([{ tool_call_id: "w1", decision: "approve" }]));
    const loops = await h.store.listLoops(session.id);
    expect(loops).toHaveLength(2);
    const [parent, child] = loops;
    expect(child).toMatchObject({
      parentLoopId: parent?.loopId,
      continuationKind: { type: "default" },
      status: "completed",
      // the approved call's round, then the model's answer
      turns: 2,
    });
    expect(parent?.childLoopIds).toEqual([child?.loopId]);
  });

  it("Plan mode → question → answer → plan → approve: once the session is Idle no loop is running", async () => {
    const h = harness([
      call("ask_question", { question: "Which file?", choices: ["a.ts", "b.ts"] }, "q1"),
      call("present_plan", { summary: "Echo it", steps: [{ title: "Echo" }] }, "p1"),
      call("echo", { text: "done" }, "e1"),
      say("Carried out."),
    ]);
    const session = await h.manager.create({
      config: { agent_mode: "plan", approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "plan a change" }));
    expect(session.state.type).toBe("AwaitingUserAnswer");
    // the question stops the run between turns (the session's beforeTurn): its loop still ended
    const [asked] = await h.store.listLoops(session.id);
    expect(asked).toMatchObject({ status: "completed", turns: 1 });
    expect(asked?.endedAt).toBeGreaterThanOrEqual(asked?.startedAt ?? Number.POSITIVE_INFINITY);
    await collect(session.sendMessage({ type: "text", text: "a.ts" }));
    const plan = session.messages().messages.at(-1)!;
    expect(plan.body.message_type).toBe("plan");
    await collect(session.approvePlan(plan.id));
    expect(session.state.type).toBe("Idle");
    const loops = await h.store.listLoops(session.id);
    expect(loops).toHaveLength(3);
    expect(loops.map((l) => l.status)).toEqual(["completed", "completed", "completed"]);
    // each closed record keeps what its run added: prompt, call and its result for the question
    // and the plan; the act run's prompt, echo call, result and answer
    expect(loops.map((l) => l.messages.length)).toEqual([3, 3, 4]);
  });

  it("a fold that returned (its loop stopped between turns) is not left running", async () => {
    const h = harness([
      call("branch", { description: "look", prompt: "Look around and return." }, "b1"),
      call("return", { message: "Nothing there." }, "r1"),
      say("The fold found nothing."),
    ]);
    const session = await h.manager.create({
      config: {
        approval_policy: { type: "auto_approve_all" },
        folding: { enabled: true, default_budget: 1_000_000, max_budget: 1_000_000 },
      },
    });
    await collect(session.sendMessage({ type: "text", text: "fold it" }));
    expect(session.state.type).toBe("Idle");
    const loops = await h.store.listLoops(session.id);
    expect(loops.map((l) => [l.loopId.includes(".fold.") ? "fold" : "run", l.status])).toEqual([
      ["run", "completed"],
      ["fold", "completed"],
    ]);
  });
});
