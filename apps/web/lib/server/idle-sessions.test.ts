import { DEFAULT_IDLE_SESSION_MS } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { idleSessionMs } from "./idle-sessions";

describe("ARBOR_IDLE_SESSION_SECONDS", () => {
  it("defaults to five minutes and takes whole seconds, 0 included", () => {
    expect(idleSessionMs({})).toBe(DEFAULT_IDLE_SESSION_MS);
    expect(DEFAULT_IDLE_SESSION_MS).toBe(300_000);
    expect(idleSessionMs({ ARBOR_IDLE_SESSION_SECONDS: " 30 " })).toBe(30_000);
    expect(idleSessionMs({ ARBOR_IDLE_SESSION_SECONDS: "0" })).toBe(0);
  });

  it("refuses anything else, naming the variable", () => {
    for (const bad of ["-1", "1.5", "5m", "ten"]) {
      expect(() => idleSessionMs({ ARBOR_IDLE_SESSION_SECONDS: bad })).toThrow(
        /^ARBOR_IDLE_SESSION_SECONDS: /,
      );
    }
  });
});
