import { describe, expect, it } from "vitest";
import { TestConversation } from "../../../test/support/test-conversation.js";
import { hasErrors, validateBranch } from "./validate.js";

function kinds(c: TestConversation, ids: string[]) {
  return validateBranch(c.branch("b", ids), c.lookup).map((p) => [p.kind, p.message_id]);
}

describe("validateBranch", () => {
  it("accepts a well-formed conversation with tool calls", () => {
    const c = new TestConversation();
    c.user("u1");
    c.toolRequest("r1", [
      { id: "c1", name: "read" },
      { id: "c2", name: "read" },
    ]);
    c.toolResult("t1", "r1", "c1");
    c.toolResult("t2", "r1", "c2");
    c.assistant("a1");
    expect(kinds(c, ["u1", "r1", "t1", "t2", "a1"])).toEqual([]);
  });

  it("reports unknown and duplicate ids", () => {
    const c = new TestConversation();
    c.user("u1");
    expect(kinds(c, ["u1", "ghost", "u1"])).toEqual([
      ["unknown_message", "ghost"],
      ["duplicate_message", "u1"],
    ]);
  });

  it("reports a tool result whose request is missing, comes after it, or did not make the call", () => {
    const c = new TestConversation();
    c.toolRequest("r1", [{ id: "c1", name: "read" }]);
    c.toolResult("t1", "r1", "c1");
    c.toolResult("t9", "r1", "c9");
    expect(kinds(c, ["t1"])).toEqual([["missing_tool_request", "t1"]]);
    expect(kinds(c, ["t1", "r1"])).toEqual([["result_before_request", "t1"]]);
    expect(kinds(c, ["r1", "t1", "t9"])).toEqual([["unknown_tool_call", "t9"]]);
  });

  it("reports a call answered twice", () => {
    const c = new TestConversation();
    c.toolRequest("r1", [{ id: "c1", name: "read" }]);
    c.toolResult("t1", "r1", "c1");
    c.toolResult("t1b", "r1", "c1");
    expect(kinds(c, ["r1", "t1", "t1b"])).toEqual([["duplicate_tool_result", "t1b"]]);
  });

  it("warns about unanswered calls only when the conversation went on", () => {
    const c = new TestConversation();
    c.toolRequest("r1", [
      { id: "c1", name: "read" },
      { id: "c2", name: "read" },
    ]);
    c.toolResult("t1", "r1", "c1");
    c.user("u1");
    expect(kinds(c, ["r1", "t1"])).toEqual([]); // still waiting for c2
    const problems = validateBranch(c.branch("b", ["r1", "t1", "u1"]), c.lookup);
    expect(problems.map((p) => [p.kind, p.severity, p.related_id])).toEqual([
      ["unanswered_tool_call", "warning", "c2"],
    ]);
    expect(hasErrors(problems)).toBe(false);
  });

  it("does not require timestamps to increase (order logical = dependency order)", () => {
    const c = new TestConversation();
    c.user("late-made-early");
    c.user("u1");
    // "late-made-early" was created first but is placed last, as a merge does
    expect(kinds(c, ["u1", "late-made-early"])).toEqual([]);
  });

  it("reports a message of another session", () => {
    const c = new TestConversation();
    c.user("u1");
    const branch = { ...c.branch("b", ["u1"]), session_id: "other" };
    expect(validateBranch(branch, c.lookup).map((p) => p.kind)).toEqual(["foreign_session"]);
  });
});
