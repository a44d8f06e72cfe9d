import { describe, expect, it } from "vitest";
import { TestConversation } from "../../../test/support/test-conversation.js";
import { createBranch, deleteBranch, forkForEdit, switchBranch } from "./branch-ops.js";
import { BranchOpError, type BranchOpFailureCode } from "./errors.js";
import { validateBranch } from "./validate.js";

function failureCode(fn: () => unknown): BranchOpFailureCode | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof BranchOpError) return error.code;
    throw error;
  }
  return undefined;
}

function mainConversation() {
  const c = new TestConversation();
  const ids = [c.user("u1"), c.assistant("a1"), c.user("u2"), c.assistant("a2")];
  const main = c.branch("main", ids, { system_prompt: "base-override" });
  return { c, main };
}

describe("createBranch", () => {
  it("forks at a message: the source's ids up to and including it, sharing the pool", () => {
    const { c, main } = mainConversation();
    const before = structuredClone(main);
    const fork = createBranch({ from: main, fromMessageId: "a1", pool: c.lookup, ...clock(c) });
    expect(fork.message_ids).toEqual(["u1", "a1"]);
    expect(fork.fork_message_id).toBe("a1");
    expect(fork.parent_branch_id).toBe("main");
    expect(fork.session_id).toBe(main.session_id);
    expect(fork.merged_from).toEqual([]);
    expect(main).toEqual(before); // input untouched
    fork.message_ids.push("x");
    expect(main.message_ids).toHaveLength(4); // lists are not shared
  });

  it("rejects an unknown message and one that is not on the source branch", () => {
    const { c, main } = mainConversation();
    c.user("elsewhere");
    const from = { from: main, pool: c.lookup, ...clock(c) };
    expect(failureCode(() => createBranch({ ...from, fromMessageId: "nope" }))).toBe(
      "unknown_message",
    );
    expect(failureCode(() => createBranch({ ...from, fromMessageId: "elsewhere" }))).toBe(
      "message_not_on_branch",
    );
  });

  it("names a branch branch-N, skipping names in use, unless a name is given", () => {
    const { c, main } = mainConversation();
    const base = { from: main, fromMessageId: "u1", pool: c.lookup, ...clock(c) };
    expect(createBranch(base).name).toBe("branch-2");
    const taken = c.branch("b2", [], { name: "branch-3" });
    expect(createBranch({ ...base, existing: [main, taken] }).name).toBe("branch-4");
    expect(createBranch({ ...base, name: "experiment" }).name).toBe("experiment");
  });

  it("Branch-specific pipeline configuration", () => {
    const { c, main } = mainConversation();
    const base = { from: main, fromMessageId: "a2", pool: c.lookup, ...clock(c) };
    const experiment = createBranch({
      ...base,
      systemPrompt: "be terse",
      pipeline: { processors: ["file_reference", "system_prompt"] },
    });
    expect(experiment.system_prompt).toBe("be terse");
    expect(experiment.pipeline).toEqual({ processors: ["file_reference", "system_prompt"] });
    // the other branch is unaffected
    expect(main.system_prompt).toBe("base-override");
    expect(main.pipeline).toBeUndefined();
    // no pipeline given → the source's (here none: the default pipeline); null → the base prompt
    const plain = createBranch({ ...base, systemPrompt: null });
    expect(plain.pipeline).toBeUndefined();
    expect(plain.system_prompt).toBeUndefined();
    // inherited pipelines are copies
    const child = createBranch({ ...base, from: experiment });
    expect(child.system_prompt).toBe("be terse");
    child.pipeline?.processors.push("tool_enhancement");
    expect(experiment.pipeline?.processors).toHaveLength(2);
  });
});

describe("forkForEdit", () => {
  it("editing and resending a message forks: ids before it plus a new text message", () => {
    const { c, main } = mainConversation();
    const { branch, message } = forkForEdit({
      branch: main,
      messageId: "u2",
      newText: "second question, rephrased",
      pool: c.lookup,
      ...clock(c),
    });
    expect(branch.message_ids).toEqual(["u1", "a1", message.id]);
    expect(branch.fork_message_id).toBe("a1");
    expect(message.role).toBe("user");
    expect(message.body).toEqual({ message_type: "text", text: "second question, rephrased" });
    // the new message says what it replaces, so a client can say "edited" rather than "forked"
    expect(message.meta).toEqual({ edited_from: "u2" });
    expect(c.pool.get("u2")?.body).toEqual({ message_type: "text", text: "u2" }); // original kept
    expect(c.pool.has(message.id)).toBe(false); // the caller adds it
    c.pool.set(message.id, message);
    expect(validateBranch(branch, c.lookup)).toEqual([]);
  });

  it("editing the first message gives a branch without a fork point message", () => {
    const { c, main } = mainConversation();
    const { branch, message } = forkForEdit({
      branch: main,
      messageId: "u1",
      newText: "hi",
      pool: c.lookup,
      ...clock(c),
    });
    expect(branch.message_ids).toEqual([message.id]);
    expect(branch.fork_message_id).toBeNull();
  });

  it("refuses to edit a non-text message", () => {
    const c = new TestConversation();
    c.user("u1");
    c.toolRequest("r1", [{ id: "call1", name: "read" }]);
    const main = c.branch("main", ["u1", "r1"]);
    expect(
      failureCode(() =>
        forkForEdit({ branch: main, messageId: "r1", newText: "x", pool: c.lookup, ...clock(c) }),
      ),
    ).toBe("not_editable");
  });
});

describe("deleteBranch", () => {
  it("cannot delete the active branch, the last branch or an unknown one", () => {
    const { c, main } = mainConversation();
    const fork = createBranch({ from: main, fromMessageId: "a1", pool: c.lookup, ...clock(c) });
    const now = c.now;
    expect(
      failureCode(() =>
        deleteBranch({ branches: [main, fork], branchId: "main", activeBranchId: "main", now }),
      ),
    ).toBe("active_branch");
    expect(
      failureCode(() =>
        deleteBranch({ branches: [main], branchId: "main", activeBranchId: "other", now }),
      ),
    ).toBe("last_branch");
    expect(
      failureCode(() =>
        deleteBranch({ branches: [main, fork], branchId: "zzz", activeBranchId: "main", now }),
      ),
    ).toBe("unknown_branch");
  });

  it("children of a deleted branch keep working and are reparented", () => {
    const { c, main } = mainConversation();
    const middle = createBranch({ from: main, fromMessageId: "a1", pool: c.lookup, ...clock(c) });
    const withReply = { ...middle, message_ids: [...middle.message_ids, c.user("m1")] };
    const child = createBranch({
      from: withReply,
      fromMessageId: "m1",
      pool: c.lookup,
      ...clock(c),
    });
    const { branches, deleted, updated } = deleteBranch({
      branches: [main, withReply, child],
      branchId: middle.id,
      activeBranchId: "main",
      now: c.now,
    });
    expect(deleted.id).toBe(middle.id);
    expect(branches.map((b) => b.id)).toEqual(["main", child.id]);
    expect(updated).toHaveLength(1);
    const moved = updated[0]!;
    expect(moved.message_ids).toEqual(["u1", "a1", "m1"]); // untouched
    expect(moved.parent_branch_id).toBe("main");
    expect(moved.fork_message_id).toBe("a1"); // last id shared with the new parent
    expect(child.parent_branch_id).toBe(middle.id); // input untouched
    expect(switchBranch({ branches, branchId: child.id, pool: c.lookup }).branch).toBe(moved);
  });
});

describe("switchBranch", () => {
  it("returns an existing valid branch and refuses unknown or invalid ones", () => {
    const { c, main } = mainConversation();
    const broken = c.branch("broken", ["u1", "missing"]);
    const branches = [main, broken];
    expect(switchBranch({ branches, branchId: "main", pool: c.lookup })).toEqual({
      branch: main,
      warnings: [],
    });
    expect(failureCode(() => switchBranch({ branches, branchId: "x", pool: c.lookup }))).toBe(
      "unknown_branch",
    );
    expect(failureCode(() => switchBranch({ branches, branchId: "broken", pool: c.lookup }))).toBe(
      "invalid_branch",
    );
  });
});

function clock(c: TestConversation) {
  return { newId: c.newId, now: c.now };
}
