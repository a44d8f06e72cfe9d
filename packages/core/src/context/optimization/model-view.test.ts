import { describe, expect, it } from "vitest";
import { fileReference, message, toolPair } from "../../../test/support/random-context-history.js";
import { toModelText } from "./model-view.js";

describe("toModelText", () => {
  it("shows each message type as the model reads it", () => {
    expect(toModelText(fileReference("f", "src/a.ts", "line1\nline2"))).toBe(
      "File: src/a.ts (lines 1-2)\nline1\nline2",
    );
    const [request, result] = toolPair("t", [
      { name: "read_file", args: { path: "a.ts" }, output: "body", status: "error" },
    ]);
    expect(toModelText(request!)).toBe('→ read_file({"path":"a.ts"})');
    expect(toModelText(result!)).toBe("[read_file result: error]\nbody");
    expect(
      toModelText(
        message("p", "assistant", {
          message_type: "plan",
          summary: "S",
          steps: [{ title: "a", detail: "d" }, { title: "b" }],
        }),
      ),
    ).toBe("Plan: S\n1. a — d\n2. b");
    expect(
      toModelText(
        message("q", "assistant", {
          message_type: "question",
          question: "Which?",
          choices: ["x", "y"],
          allow_free_text: true,
        }),
      ),
    ).toBe("Question: Which?\nChoices: x | y");
    expect(
      toModelText(
        message("s", "system", {
          message_type: "system_control",
          kind: "summary",
          text: "gist",
          replaces: ["a", "b"],
        }),
      ),
    ).toBe("[Summary of 2 earlier messages]\ngist");
    expect(
      toModelText(
        message("r", "user", {
          message_type: "file_reference",
          path: "x.ts",
          range: { start_line: 3, end_line: 3 },
        }),
      ),
    ).toBe("[file x.ts (line 3), not resolved]");
  });
});
