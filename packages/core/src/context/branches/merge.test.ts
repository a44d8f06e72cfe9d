import { describe, expect, it } from "vitest";
import { TestConversation } from "../../../test/support/test-conversation.js";
import type { MergeOutcome } from "../../model/merge-types.js";
import { BranchOpError } from "./errors.js";
import { planMerge, resolveMerge } from "./merge.js";

function merged(outcome: MergeOutcome) {
  if (outcome.status !== "merged") throw new Error(`expected merged, got ${outcome.status}`);
  return outcome;
}

function failure(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    if (error instanceof BranchOpError) return error.failure;
    throw error;
  }
  throw new Error("expected a BranchOpError");
}

/** main: u1 a1 | side (forked after a1): u2 r1 t1 a2 */
function diverged() {
  const c = new TestConversation();
  c.user("u1");
  c.assistant("a1");
  c.user("u2");
  c.toolRequest("r1", [{ id: "c1", name: "read", args: { path: "a.ts" } }]);
  c.toolResult("t1", "r1", "c1");
  c.assistant("a2");
  c.user("m1");
  const target = c.branch("main", ["u1", "a1", "m1"]);
  const source = c.branch("side", ["u1", "a1", "u2", "r1", "t1", "a2"], {
    parent_branch_id: "main",
    fork_message_id: "a1",
  });
  const base = { pool: c.lookup, newId: c.newId, now: c.now };
  return { c, target, source, base };
}

describe("Simple append merge", () => {
  it("appends the source's messages not on the target, in source order, skipping duplicates", () => {
    const { target, source, base } = diverged();
    const before = structuredClone(target);
    const { result, warnings } = merged(planMerge({ strategy: "append", source, target, ...base }));
    expect(result.target.message_ids).toEqual(["u1", "a1", "m1", "u2", "r1", "t1", "a2"]);
    expect(result.added_message_ids).toEqual(["u2", "r1", "t1", "a2"]);
    expect(result.newMessages).toEqual([]);
    expect(result.target.merged_from).toEqual([
      { branch_id: "side", merge_id: result.merge_id, strategy: "append", at: expect.any(String) },
    ]);
    expect(result.target.updated_at).not.toBe(target.updated_at); // the context is dirty
    expect(warnings).toEqual([]);
    expect(target).toEqual(before);
  });

  it("merging the same branch twice is idempotent", () => {
    const { target, source, base } = diverged();
    const first = merged(planMerge({ strategy: "append", source, target, ...base })).result.target;
    const second = merged(planMerge({ strategy: "append", source, target: first, ...base }));
    expect(second.result.target).toEqual(first);
    expect(second.result.added_message_ids).toEqual([]);
    expect(second.warnings.map((w) => w.kind)).toEqual(["nothing_to_merge"]);
  });

  it("refuses to merge a branch into itself or across sessions", () => {
    const { target, source, base } = diverged();
    expect(
      failure(() => planMerge({ strategy: "append", source: target, target, ...base })).code,
    ).toBe("same_branch");
    const foreign = { ...source, session_id: "s2" };
    expect(
      failure(() => planMerge({ strategy: "append", source: foreign, target, ...base })).code,
    ).toBe("different_sessions");
  });
});

describe("Cherry-pick merge", () => {
  it("copies only the chosen messages, in source order, when dependencies are satisfied", () => {
    const { target, source, base } = diverged();
    const outcome = planMerge({
      strategy: "cherry_pick",
      messageIds: ["a2", "t1", "r1"],
      source,
      target,
      ...base,
    });
    const { result, warnings } = merged(outcome);
    expect(result.target.message_ids).toEqual(["u1", "a1", "m1", "r1", "t1", "a2"]);
    expect(result.target.merged_from.at(-1)?.strategy).toBe("cherry_pick");
    expect(warnings).toEqual([]);
  });

  it("cherry-pick of a tool_result without its request warns and waits for the caller", () => {
    const { target, source, base } = diverged();
    const outcome = planMerge({
      strategy: "cherry_pick",
      messageIds: ["t1"],
      source,
      target,
      ...base,
    });
    if (outcome.status !== "needs_confirmation") throw new Error(outcome.status);
    expect(outcome.warnings).toEqual([
      {
        kind: "missing_tool_request",
        message_id: "t1",
        missing_id: "r1",
        description: expect.stringContaining("r1"),
      },
    ]);
    expect(outcome.pending.dependency_ids).toEqual(["r1"]);

    // proceed with dependencies: the request comes along, before the result
    const withDeps = merged(
      resolveMerge({
        pending: outcome.pending,
        decision: { action: "proceed", include_dependencies: true },
        target,
        ...base,
      }),
    );
    expect(withDeps.result.target.message_ids).toEqual(["u1", "a1", "m1", "r1", "t1"]);

    // proceed as chosen: the result cannot stand alone, so a notice quoting it is brought instead
    const asChosen = merged(
      resolveMerge({ pending: outcome.pending, decision: { action: "proceed" }, target, ...base }),
    );
    const [copy] = asChosen.result.newMessages;
    expect(copy?.body).toMatchObject({
      message_type: "system_control",
      kind: "notice",
      data: { source_message_id: "t1", request_id: "r1", tool_call_id: "c1" },
    });
    expect(asChosen.result.target.message_ids).toEqual(["u1", "a1", "m1", copy?.id]);
    expect(asChosen.warnings.map((w) => w.kind)).toEqual(["detached_tool_result"]);

    // cancel: nothing to persist
    expect(
      resolveMerge({ pending: outcome.pending, decision: { action: "cancel" }, target, ...base }),
    ).toEqual({ status: "cancelled", merge_id: outcome.pending.merge_id });
  });

  it("a picked tool_request without its results warns; proceeding keeps it unanswered", () => {
    const { target, source, base } = diverged();
    const outcome = planMerge({
      strategy: "cherry_pick",
      messageIds: ["r1", "a2"],
      source,
      target,
      ...base,
    });
    if (outcome.status !== "needs_confirmation") throw new Error(outcome.status);
    expect(outcome.warnings.map((w) => [w.kind, "missing_id" in w ? w.missing_id : ""])).toEqual([
      ["missing_tool_result", "t1"],
    ]);
    const asChosen = merged(
      resolveMerge({ pending: outcome.pending, decision: { action: "proceed" }, target, ...base }),
    );
    expect(asChosen.result.target.message_ids).toEqual(["u1", "a1", "m1", "r1", "a2"]);
    expect(asChosen.warnings.map((w) => (w.kind === "validation" ? w.problem : w.kind))).toEqual([
      "unanswered_tool_call",
    ]);
  });

  it("dependencies are brought transitively: a request brings all of its results", () => {
    const c = new TestConversation();
    c.user("u1");
    c.toolRequest("r1", [
      { id: "c1", name: "read" },
      { id: "c2", name: "read" },
    ]);
    c.toolResult("t1", "r1", "c1");
    c.toolResult("t2", "r1", "c2");
    const target = c.branch("main", ["u1"]);
    const source = c.branch("side", ["u1", "r1", "t1", "t2"]);
    const base = { pool: c.lookup, newId: c.newId, now: c.now };
    const outcome = planMerge({
      strategy: "cherry_pick",
      messageIds: ["t2"],
      source,
      target,
      ...base,
    });
    if (outcome.status !== "needs_confirmation") throw new Error(outcome.status);
    expect(outcome.pending.dependency_ids).toEqual(["r1", "t1"]);
    const done = merged(
      resolveMerge({
        pending: outcome.pending,
        decision: { action: "proceed", include_dependencies: true },
        target,
        ...base,
      }),
    );
    expect(done.result.target.message_ids).toEqual(["u1", "r1", "t1", "t2"]);
  });

  it("rejects ids that are not on the source and an empty selection", () => {
    const { c, target, source, base } = diverged();
    c.user("stray");
    const plan = (messageIds: string[]) => () =>
      planMerge({ strategy: "cherry_pick", messageIds, source, target, ...base });
    expect(failure(plan(["stray"])).code).toBe("message_not_on_branch");
    expect(failure(plan(["nope"])).code).toBe("unknown_message");
    expect(failure(plan([])).code).toBe("empty_selection");
  });

  it("refuses a stale pending merge and a decision that does not apply", () => {
    const { target, source, base } = diverged();
    const outcome = planMerge({
      strategy: "cherry_pick",
      messageIds: ["t1"],
      source,
      target,
      ...base,
    });
    if (outcome.status !== "needs_confirmation") throw new Error(outcome.status);
    const moved = { ...target, message_ids: [...target.message_ids, "u2"] };
    expect(
      failure(() =>
        resolveMerge({
          pending: outcome.pending,
          decision: { action: "proceed" },
          target: moved,
          ...base,
        }),
      ).code,
    ).toBe("stale_merge");
    expect(
      failure(() =>
        resolveMerge({
          pending: outcome.pending,
          decision: { action: "resolve", resolutions: [] },
          target,
          ...base,
        }),
      ).code,
    ).toBe("decision_not_applicable");
  });
});

describe("Post-merge validation", () => {
  it("the merged target's ids are valid, in the pool and in dependency order", () => {
    const { target, source, base } = diverged();
    const { result } = merged(planMerge({ strategy: "append", source, target, ...base }));
    const ids = result.target.message_ids;
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(base.pool(id)).toBeDefined();
    expect(ids.indexOf("r1")).toBeLessThan(ids.indexOf("t1"));
  });

  it("a merge whose result would be invalid is aborted with the problems", () => {
    const c = new TestConversation();
    c.user("u1");
    c.toolRequest("r1", [{ id: "c1", name: "write", args: { path: "x" } }]);
    c.toolResult("t-main", "r1", "c1", "done on main");
    c.toolResult("t-side", "r1", "c1", "done on side");
    const target = c.branch("main", ["u1", "r1", "t-main"]);
    const source = c.branch("side", ["u1", "r1", "t-side"]);
    const f = failure(() =>
      planMerge({ strategy: "append", source, target, pool: c.lookup, newId: c.newId, now: c.now }),
    );
    if (f.code !== "invalid_merge_result") throw new Error(f.code);
    expect(f.problems.map((p) => [p.kind, p.message_id])).toEqual([
      ["duplicate_tool_result", "t-side"],
    ]);
  });

  it("a source that references messages missing from the pool cannot be merged", () => {
    const { target, source, base } = diverged();
    const corrupt = { ...source, message_ids: [...source.message_ids, "ghost"] };
    expect(
      failure(() => planMerge({ strategy: "append", source: corrupt, target, ...base })).code,
    ).toBe("invalid_merge_result");
  });
});
