import { describe, expect, it } from "vitest";
import { text, toolPair } from "../../../test/support/random-context-history.js";
import { recentNStrategy } from "./recent-n.js";
import { contextMessageTokens } from "./request-tokens.js";

describe("RecentN", () => {
  const messages = [
    text("u1", "user", "first ".repeat(50)),
    text("a1", "assistant", "answer ".repeat(50)),
    text("u2", "user", "second"),
    ...toolPair("t", [
      { name: "read_file", output: "x" },
      { name: "bash", output: "y" },
    ]),
    text("a2", "assistant", "done"),
  ];
  const tokens = messages.map((m) => contextMessageTokens(m));

  it("keeps the last n, widened so a tool call keeps its results; older ones become one summary", () => {
    const selection = recentNStrategy({ n: 2 }).select({ messages, tokens, budget: 10 });
    // the last 2 are t.r1 and a2: widened back to the tool_request t
    expect(selection.dispositions.map((d) => d.kind)).toEqual([
      "summarize",
      "summarize",
      "summarize",
      "keep",
      "keep",
      "keep",
      "keep",
    ]);
    expect(
      new Set(selection.dispositions.flatMap((d) => (d.kind === "summarize" ? [d.group] : []))),
    ).toEqual(new Set([0]));
  });

  it("drops instead when asked, and keeps everything that fits", () => {
    const dropped = recentNStrategy({ n: 1, summarize: false }).select({
      messages,
      tokens,
      budget: 10,
    });
    expect(dropped.dispositions.map((d) => d.kind)).toEqual([
      "drop",
      "drop",
      "drop",
      "drop",
      "drop",
      "drop",
      "keep",
    ]);
    const roomy = recentNStrategy({ n: 1 }).select({ messages, tokens, budget: 1e9 });
    expect(roomy.dispositions.every((d) => d.kind === "keep")).toBe(true);
  });
});
