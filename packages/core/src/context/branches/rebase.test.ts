import { describe, expect, it } from "vitest";
import { TestConversation } from "../../../test/support/test-conversation.js";
import type { MergeOutcome } from "../../model/merge-types.js";
import { createBranch } from "./branch-ops.js";
import { BranchOpError } from "./errors.js";
import { planMerge, resolveMerge } from "./merge.js";
import { validateBranch } from "./validate.js";

function merged(outcome: MergeOutcome) {
  if (outcome.status !== "merged") throw new Error(`expected merged, got ${outcome.status}`);
  return outcome;
}

function conflicted(outcome: MergeOutcome) {
  if (outcome.status !== "conflicts") throw new Error(`expected conflicts, got ${outcome.status}`);
  return outcome;
}

function setup() {
  const c = new TestConversation();
  const base = { pool: c.lookup, newId: c.newId, now: c.now };
  const rebase = (source: ReturnType<TestConversation["branch"]>, target: typeof source) =>
    planMerge({ strategy: "rebase", source, target, ...base });
  return { c, base, rebase };
}

describe("Rebase merge", () => {
  it("finds the common ancestor, replays the source's newer messages after the target's own", () => {
    const { c, rebase } = setup();
    c.user("u1");
    c.assistant("a1");
    c.user("t-q"); // the target asked a follow-up…
    c.assistant("t-a");
    c.toolRequest("s-r", [{ id: "s-c", name: "read", args: { path: "a.ts" } }]); // …the source ran a tool
    c.toolResult("s-t", "s-r", "s-c");
    c.assistant("s-a");
    const target = c.branch("main", ["u1", "a1", "t-q", "t-a"]);
    const source = c.branch("side", ["u1", "a1", "s-r", "s-t", "s-a"]);
    const { result } = merged(rebase(source, target));
    expect(result.target.message_ids).toEqual(["u1", "a1", "t-q", "t-a", "s-r", "s-t", "s-a"]);
    expect(result.added_message_ids).toEqual(["s-r", "s-t", "s-a"]);
    expect(result.target.merged_from.at(-1)?.strategy).toBe("rebase");
  });

  it("rebase with no divergence fast-forwards", () => {
    const { c, rebase } = setup();
    for (const id of ["u1", "a1", "u2", "a2"]) c.user(id);
    const target = c.branch("main", ["u1", "a1"]);
    const source = c.branch("side", ["u1", "a1", "u2", "a2"]);
    const { result, warnings } = merged(rebase(source, target));
    expect(result.target.message_ids).toEqual(source.message_ids);
    expect(warnings).toEqual([]);
    // and rebasing again has nothing to do
    const again = merged(rebase(source, result.target));
    expect(again.result.target.message_ids).toEqual(source.message_ids);
    expect(again.warnings.map((w) => w.kind)).toEqual(["nothing_to_merge"]);
  });

  it("finds the ancestor of a fork of a fork without walking fork points", () => {
    const { c, base, rebase } = setup();
    c.user("u1");
    c.assistant("a1");
    c.user("u2");
    c.assistant("a2");
    const main = c.branch("main", ["u1", "a1", "u2", "a2"]);
    const fork = createBranch({ from: main, fromMessageId: "a2", ...base });
    const forkOfFork = createBranch({ from: fork, fromMessageId: "a1", ...base });
    forkOfFork.message_ids.push(c.assistant("deep"));
    main.message_ids.push(c.user("main-next"));
    // ancestor of main and forkOfFork is a1: deep is an assistant message, u2 a user one → no conflict
    const { result } = merged(rebase(forkOfFork, main));
    expect(result.target.message_ids).toEqual(["u1", "a1", "u2", "a2", "main-next", "deep"]);
  });
});

describe("Merge conflict detection", () => {
  it("divergent continuation: both sides answered the same turn", () => {
    const { c, base, rebase } = setup();
    c.user("u1");
    c.assistant("a-main");
    c.assistant("a-side");
    const target = c.branch("main", ["u1", "a-main"]);
    const source = c.branch("side", ["u1", "a-side"]);
    const before = structuredClone(target);
    const { conflicts, pending } = conflicted(rebase(source, target));
    expect(conflicts).toHaveLength(1);
    const [conflict] = conflicts;
    expect(conflict).toMatchObject({
      kind: "divergent_continuation",
      source_message_ids: ["a-side"],
      target_message_ids: ["a-main"],
    });
    expect(conflict?.timestamps).toEqual([
      { message_id: "a-side", side: "source", created_at: c.pool.get("a-side")?.created_at },
      { message_id: "a-main", side: "target", created_at: c.pool.get("a-main")?.created_at },
    ]);
    expect(conflict?.suggested_resolutions.map((s) => s.resolution)).toEqual([
      "keep_target",
      "keep_source",
      "keep_both",
      "custom",
    ]);
    const resolve = (resolution: "keep_source" | "keep_target" | "keep_both") =>
      merged(
        resolveMerge({
          pending,
          decision: {
            action: "resolve",
            resolutions: [{ conflict_id: conflict!.conflict_id, resolution }],
          },
          target,
          ...base,
        }),
      ).result;
    expect(resolve("keep_source").target.message_ids).toEqual(["u1", "a-side"]);
    expect(resolve("keep_source").removed_message_ids).toEqual(["a-main"]);
    expect(resolve("keep_target").target.message_ids).toEqual(["u1", "a-main"]);
    expect(resolve("keep_both").target.message_ids).toEqual(["u1", "a-main", "a-side"]);
    expect(target).toEqual(before);
  });

  it("conflicting file edit: same tool on the same path with different arguments", () => {
    const { c, rebase } = setup();
    c.user("u1");
    c.assistant("a1");
    c.user("m-q");
    c.toolRequest("m-r", [
      { id: "m-c", name: "write_file", args: { path: "src/x.ts", content: "A" } },
    ]);
    c.toolResult("m-t", "m-r", "m-c", "wrote 1 byte");
    c.toolRequest("s-r", [
      { id: "s-c", name: "write_file", args: { content: "B", path: "src/x.ts" } },
    ]);
    c.toolResult("s-t", "s-r", "s-c", "wrote 1 byte");
    c.toolRequest("s-read", [{ id: "s-rc", name: "read_file", args: { path: "src/x.ts" } }]);
    c.toolResult("s-read-t", "s-read", "s-rc", "B");
    const target = c.branch("main", ["u1", "a1", "m-q", "m-r", "m-t"]);
    const source = c.branch("side", ["u1", "a1", "s-r", "s-t", "s-read", "s-read-t"]);
    const { conflicts } = conflicted(rebase(source, target));
    expect(
      conflicts.map((k) => [k.kind, k.path, k.source_message_ids, k.target_message_ids]),
    ).toEqual([["conflicting_file_edit", "src/x.ts", ["s-r", "s-t"], ["m-r", "m-t"]]]);
  });

  it("identical edits on both sides do not conflict", () => {
    const { c, rebase } = setup();
    c.user("u1");
    c.user("m-q");
    c.toolRequest("m-r", [{ id: "m-c", name: "edit", args: { path: "x", new: "1" } }]);
    c.toolResult("m-t", "m-r", "m-c");
    c.toolRequest("s-r", [{ id: "s-c", name: "edit", args: { new: "1", path: "x" } }]);
    c.toolResult("s-t", "s-r", "s-c");
    const target = c.branch("main", ["u1", "m-q", "m-r", "m-t"]);
    const source = c.branch("side", ["u1", "s-r", "s-t"]);
    expect(rebase(source, target).status).toBe("merged");
  });

  it("broken dependency: a replayed result whose request is not reachable", () => {
    const { c, base, rebase } = setup();
    c.user("u1");
    c.user("m-q");
    c.toolRequest("r-elsewhere", [{ id: "cx", name: "read" }]);
    c.toolResult("s-t", "r-elsewhere", "cx");
    c.assistant("s-a");
    const target = c.branch("main", ["u1", "m-q"]);
    const source = c.branch("side", ["u1", "s-t", "s-a"]); // corrupt: request not on the source
    const { conflicts, pending } = conflicted(rebase(source, target));
    expect(conflicts.map((k) => [k.kind, k.source_message_ids, k.target_message_ids])).toEqual([
      ["broken_dependency", ["s-t"], []],
    ]);
    expect(conflicts[0]?.suggested_resolutions.map((s) => s.resolution)).toEqual([
      "keep_target",
      "custom",
    ]);
    const done = merged(
      resolveMerge({
        pending,
        decision: {
          action: "resolve",
          resolutions: [
            {
              conflict_id: conflicts[0]!.conflict_id,
              resolution: "custom",
              text: "dropped a stray result",
            },
          ],
        },
        target,
        ...base,
      }),
    );
    const [note] = done.result.newMessages;
    expect(note?.body).toMatchObject({
      message_type: "system_control",
      kind: "notice",
      text: "dropped a stray result",
    });
    expect(done.result.target.message_ids).toEqual(["u1", "m-q", note?.id, "s-a"]);
    const all = new Map(done.result.newMessages.map((m) => [m.id, m]));
    expect(validateBranch(done.result.target, (id) => all.get(id) ?? c.lookup(id))).toEqual([]);
  });

  it("a tool call answered on both sides is a broken dependency; keeping both is refused", () => {
    const { c, base, rebase } = setup();
    c.user("u1");
    c.toolRequest("r1", [{ id: "c1", name: "run" }]);
    c.toolResult("t-main", "r1", "c1", "main");
    c.toolResult("t-side", "r1", "c1", "side");
    const target = c.branch("main", ["u1", "r1", "t-main"]);
    const source = c.branch("side", ["u1", "r1", "t-side"]);
    const { conflicts, pending } = conflicted(rebase(source, target));
    expect(conflicts.map((k) => k.kind)).toEqual(["divergent_continuation", "broken_dependency"]);
    const resolutions = (dep: "keep_both" | "keep_source") =>
      conflicts.map((k) => ({
        conflict_id: k.conflict_id,
        resolution: k.kind === "broken_dependency" ? dep : ("keep_both" as const),
      }));
    const ok = merged(
      resolveMerge({
        pending,
        decision: { action: "resolve", resolutions: resolutions("keep_source") },
        target,
        ...base,
      }),
    );
    expect(ok.result.target.message_ids).toEqual(["u1", "r1", "t-side"]);
    expect(() =>
      resolveMerge({
        pending,
        decision: { action: "resolve", resolutions: resolutions("keep_both") },
        target,
        ...base,
      }),
    ).toThrow(BranchOpError);
  });

  it("conflicts block completion until every one is resolved", () => {
    const { c, base, rebase } = setup();
    c.user("u1");
    c.assistant("a-main");
    c.toolRequest("m-r", [{ id: "m-c", name: "write", args: { path: "f", text: "1" } }]);
    c.toolResult("m-t", "m-r", "m-c");
    c.assistant("a-side");
    c.toolRequest("s-r", [{ id: "s-c", name: "write", args: { path: "f", text: "2" } }]);
    c.toolResult("s-t", "s-r", "s-c");
    const target = c.branch("main", ["u1", "a-main", "m-r", "m-t"]);
    const source = c.branch("side", ["u1", "a-side", "s-r", "s-t"]);
    const first = conflicted(rebase(source, target));
    expect(first.conflicts.map((k) => k.kind)).toEqual([
      "divergent_continuation",
      "conflicting_file_edit",
    ]);
    const [divergent, edit] = first.conflicts;

    const stillProceed = resolveMerge({
      pending: first.pending,
      decision: { action: "proceed" },
      target,
      ...base,
    });
    expect(conflicted(stillProceed).conflicts).toHaveLength(2);

    const partial = conflicted(
      resolveMerge({
        pending: first.pending,
        decision: {
          action: "resolve",
          resolutions: [{ conflict_id: divergent!.conflict_id, resolution: "keep_both" }],
        },
        target,
        ...base,
      }),
    );
    expect(partial.conflicts.map((k) => k.conflict_id)).toEqual([edit!.conflict_id]);

    const done = merged(
      resolveMerge({
        pending: partial.pending,
        decision: {
          action: "resolve",
          resolutions: [{ conflict_id: edit!.conflict_id, resolution: "keep_target" }],
        },
        target,
        ...base,
      }),
    );
    // both continuations kept, but the source's write to f (with its result) left out
    expect(done.result.target.message_ids).toEqual(["u1", "a-main", "m-r", "m-t", "a-side"]);
    expect(() =>
      resolveMerge({
        pending: partial.pending,
        decision: {
          action: "resolve",
          resolutions: [{ conflict_id: "nope", resolution: "keep_both" }],
        },
        target,
        ...base,
      }),
    ).toThrow(/conflict nope/);
  });

  it("cancel leaves the target untouched", () => {
    const { c, base, rebase } = setup();
    c.user("u1");
    c.assistant("a-main");
    c.assistant("a-side");
    const target = c.branch("main", ["u1", "a-main"]);
    const before = structuredClone(target);
    const { pending } = conflicted(rebase(c.branch("side", ["u1", "a-side"]), target));
    const outcome = resolveMerge({ pending, decision: { action: "cancel" }, target, ...base });
    expect(outcome).toEqual({ status: "cancelled", merge_id: pending.merge_id });
    expect(target).toEqual(before);
  });
});
