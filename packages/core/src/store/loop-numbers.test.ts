import { describe, expect, it } from "vitest";
import { loopNumberOf, nextLoopNumberOf } from "./loop-numbers.js";

describe("loop numbers from stored ids", () => {
  it("reads n only from `{sessionId}.{configId}.{n}` of that session and config", () => {
    expect(loopNumberOf("s.anthropic.m.3", "s", "anthropic.m")).toBe(3);
    expect(loopNumberOf("s.anthropic.m.thinking.3", "s", "anthropic.m")).toBeUndefined();
    expect(loopNumberOf("s.anthropic.m.03", "s", "anthropic.m")).toBeUndefined();
    expect(loopNumberOf("s.anthropic.m.0", "s", "anthropic.m")).toBeUndefined();
    expect(loopNumberOf("t.anthropic.m.3", "s", "anthropic.m")).toBeUndefined();
    expect(loopNumberOf("s.anthropic.m.", "s", "anthropic.m")).toBeUndefined();
  });

  it("next: one more than the highest, 1 when none", () => {
    expect(nextLoopNumberOf([], "s", "c")).toBe(1);
    expect(nextLoopNumberOf(["s.c.2", "s.c.10", "s.c.9", "s.d.40"], "s", "c")).toBe(11);
  });
});
