import type { ContextMessage } from "@arbor/core/browser";
import { describe, expect, it } from "vitest";
import { branch } from "../test-support/branches.js";
import { text } from "../test-support/messages.js";
import { branchNotices } from "./branch-notices.js";

const pool = new Map<string, ContextMessage>(
  [
    text("Question", { id: "u1", role: "user" }),
    text("Answer one", { id: "a1" }),
    text("Answer two", { id: "a2" }),
    text("Answer three", { id: "a3" }),
    text("Question, edited", { id: "u1b", role: "user", meta: { edited_from: "u1" } }),
    text("Follow-up", { id: "u2", role: "user" }),
  ].map((m) => [m.id, m]),
);
const lookup = (id: string) => pool.get(id);
const main = branch("main", { name: "main", message_ids: ["u1", "a1"] });

describe("branchNotices", () => {
  it("the first branch has none", () => {
    expect(branchNotices([main], "main", lookup)).toEqual([]);
  });

  it("a fresh fork is announced after its fork point", () => {
    const fork = branch("f", {
      name: "branch-2",
      parent_branch_id: "main",
      fork_message_id: "a1",
      message_ids: ["u1", "a1"],
    });
    expect(branchNotices([main, fork], "f", lookup)).toEqual([
      {
        kind: "fork",
        branch_id: "f",
        after_message_id: "a1",
        before_message_id: undefined,
        text: "Forked into branch branch-2 from main after this message.",
      },
    ]);
    // once the fork went on, it is still a fork (the follow-up is a new message, not an edit)
    const went = { ...fork, message_ids: ["u1", "a1", "u2"] };
    expect(
      branchNotices([main, went], "f", lookup).map((n) => [n.kind, n.before_message_id]),
    ).toEqual([["fork", "u2"]]);
  });

  it("regenerated answers: only the latest, on the active branch, is announced", () => {
    const r1 = branch("r1", {
      name: "branch-2",
      parent_branch_id: "main",
      fork_message_id: "u1",
      message_ids: ["u1", "a2"],
    });
    const r2 = branch("r2", {
      name: "branch-3",
      parent_branch_id: "r1",
      fork_message_id: "u1",
      message_ids: ["u1", "a3"],
    });
    const notices = branchNotices([main, r1, r2], "r2", lookup);
    expect(notices.map((n) => [n.kind, n.after_message_id, n.before_message_id, n.text])).toEqual([
      [
        "regenerate",
        "u1",
        "a3",
        "Regenerated: this answer is on branch branch-3; the earlier one stays on branch-2.",
      ],
    ]);
  });

  it("an edit of the first message says so, before the edited message", () => {
    const edit = branch("e", {
      name: "branch-2",
      parent_branch_id: "main",
      fork_message_id: null,
      message_ids: ["u1b"],
    });
    expect(branchNotices([main, edit], "e", lookup)).toEqual([
      {
        kind: "edit",
        branch_id: "e",
        after_message_id: undefined,
        before_message_id: "u1b",
        text: "Edited and resent: this version is on branch branch-2; the original stays on main.",
      },
    ]);
  });

  it("an ask-N-ways candidate's branch says it holds another candidate's answer", () => {
    const other = branch("c", {
      name: "Creative (asked 3 ways)",
      parent_branch_id: "main",
      fork_message_id: "u1",
      message_ids: ["u1", "a2"],
    });
    expect(branchNotices([main, other], "c", lookup)[0]?.kind).toBe("answer");
  });

  it("a chain of forks announces each place the active branch still holds", () => {
    const f1 = branch("f1", {
      name: "one",
      parent_branch_id: "main",
      fork_message_id: "a1",
      message_ids: ["u1", "a1", "u2"],
    });
    const f2 = branch("f2", {
      name: "two",
      parent_branch_id: "f1",
      fork_message_id: "u2",
      message_ids: ["u1", "a1", "u2"],
    });
    expect(branchNotices([main, f1, f2], "f2", lookup).map((n) => n.text)).toEqual([
      "Forked into branch one from main after this message.",
      "Forked into branch two from one after this message.",
    ]);
  });
});
