import { describe, expect, it } from "vitest";
import { FoldSession } from "./fold-session.js";
import type { FoldMemorySource } from "./memory.js";

// one token per word keeps the budgets readable
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const output = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");

function session(extra: Partial<ConstructorParameters<typeof FoldSession>[0]> = {}) {
  let now = 0;
  const clock = { advance: (ms: number) => (now += ms) };
  const s = new FoldSession({ countTokens: words, now: () => now, ...extra });
  return { s, clock };
}

async function open(s: FoldSession, description = "look", budget = 100): Promise<string> {
  const result = await s.branch({ description, budget });
  if (!result.ok) throw new Error(result.message);
  return result.value.fold_id;
}

describe("FoldSession", () => {
  it("branch makes the fold active; return goes back to the parent with the scrubbed message", async () => {
    const { s } = session();
    expect(s.activeFoldId).toBeNull();
    const outer = await open(s);
    const inner = await open(s);
    expect(s.ledger.get(inner)).toMatchObject({ parentId: outer, depth: 2 });
    expect(s.activeFoldId).toBe(inner);
    const back = await s.return({
      message: "found it: token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    });
    expect(back).toMatchObject({
      ok: true,
      value: { fold_id: inner, forced: false, reason: null, active_fold_id: outer },
    });
    if (back.ok) {
      expect(back.value.message).toBe("found it: token [redacted]");
    }
    expect(s.activeFoldId).toBe(outer);
    expect((await s.return({ message: "done" })).ok).toBe(true);
    expect(s.activeFoldId).toBeNull();
    expect(await s.return({ message: "again" })).toEqual({
      ok: false,
      message: "no fold is open: call branch first",
    });
  });

  it("refuses depth 4, naming the depth, and returning from a fold twice", async () => {
    const { s } = session();
    const first = await open(s);
    await open(s);
    await open(s);
    expect(await s.branch({ description: "deeper" })).toEqual({
      ok: false,
      message: "fold depth 4 exceeds the maximum depth 3",
    });
    const outer = await s.return({ message: "all", fold_id: first });
    expect(outer.ok && outer.value.forced_children).toHaveLength(2);
    expect(await s.return({ message: "x", fold_id: first })).toEqual({
      ok: false,
      message: `fold ${first} has already returned`,
    });
  });

  it("returning from an outer fold forces the folds inside it (parent_returned)", async () => {
    const { s } = session();
    const outer = await open(s);
    const inner = await open(s);
    const result = await s.return({ message: "enough", fold_id: outer });
    expect(result).toMatchObject({ ok: true, value: { forced_children: [inner] } });
    expect(s.ledger.get(inner)).toMatchObject({ status: "forced", reason: "parent_returned" });
    expect(s.activeFoldId).toBeNull();
  });

  it("meters tool output against the active fold only: warning at 80%, forced at 100%", async () => {
    const { s } = session();
    expect(s.meter(output(50))).toEqual({ foldId: null, tokens: 0, notice: null });
    const id = await open(s, "look", 100);
    expect(s.meter(output(70))).toEqual({ foldId: id, tokens: 70, notice: null });
    expect(s.meter(output(15)).notice).toBe(`fold ${id}: 15 tokens left: finish and return.`);
    const spent = s.meter(output(20));
    expect(spent.notice).toBe(
      `fold ${id} was forced to return (budget; 105 of 100 tokens used): call return with what you found`,
    );
    // a spent fold runs no more tools until the agent returns from it
    expect(s.admit()).toEqual({ ok: false, message: expect.stringContaining("call return") });
    expect(s.meter(output(10)).tokens).toBe(0);
    expect((await s.branch({ description: "more" })).ok).toBe(false);
    const back = await s.return({ message: "partial: the loader is in config.ts" });
    expect(back).toMatchObject({
      ok: true,
      value: {
        forced: true,
        reason: "budget",
        tokens_used: 105,
        message:
          "[fold forced to return: budget; 105 of 100 tokens used] partial: the loader is in config.ts",
      },
    });
    expect(s.admit().ok).toBe(true);
  });

  it("forces a fold past its timeout at the next call (no timers)", async () => {
    const { s, clock } = session();
    const id = (await s.branch({ description: "slow", timeout_seconds: 10 })) as {
      ok: true;
      value: { fold_id: string };
    };
    expect(s.status().folds[0]?.seconds_left).toBe(10);
    clock.advance(10_000);
    expect(s.admit()).toMatchObject({ ok: false });
    expect(s.status().folds[0]).toMatchObject({
      fold_id: id.value.fold_id,
      status: "forced",
      reason: "timeout",
      seconds_left: null,
    });
    expect(await s.return({ message: "late" })).toMatchObject({
      ok: true,
      value: { forced: true, reason: "timeout" },
    });
  });

  it("injects memories up to 20% of the budget, counts them, and remembers scrubbed lessons", async () => {
    const kept: string[] = [];
    const asked: number[] = [];
    const memories: FoldMemorySource = {
      recall: (_description, budget) => {
        asked.push(budget);
        return [{ id: "m1", text: "tests live next to code" }];
      },
      remember: (description, text) => kept.push(`${description}: ${text}`),
    };
    const { s } = session({ memories });
    const result = await s.branch({ description: "lint", budget: 1000 });
    expect(asked).toEqual([200]);
    expect(result).toMatchObject({
      ok: true,
      value: { memories: [{ id: "m1", text: "tests live next to code" }], tokens_used: 5 },
    });
    await s.return({ message: "password=hunter2!x keeps failing", remember: true });
    expect(kept).toEqual(["lint: password=[redacted] keeps failing"]);
  });

  it("lists folds with their standing; closeAll forces the open ones", async () => {
    const { s } = session();
    const a = await open(s, "a", 100);
    s.meter(output(30));
    const b = await open(s, "b", 50);
    expect(s.status()).toMatchObject({
      active_fold_id: b,
      folds: [
        { fold_id: a, status: "open", tokens_used: 30, tokens_left: 70, depth: 1 },
        { fold_id: b, parent_fold_id: a, status: "open", tokens_used: 0, depth: 2 },
      ],
    });
    s.closeAll();
    expect(s.status().folds.map((f) => [f.status, f.reason])).toEqual([
      ["forced", "cancelled"],
      ["forced", "cancelled"],
    ]);
    expect(s.activeFoldId).toBeNull();
  });
});
