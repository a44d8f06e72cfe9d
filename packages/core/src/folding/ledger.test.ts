import { describe, expect, it } from "vitest";
import { budgetWarningText, DEFAULT_FOLDING_CONFIG, FoldLedger } from "./ledger.js";

function opened(ledger: FoldLedger, parentId?: string, budget?: number): string {
  const result = ledger.open({
    description: "look around",
    ...(parentId ? { parentId } : {}),
    ...(budget ? { budget } : {}),
  });
  if (!result.ok) throw new Error(result.refusal.message);
  return result.fold.id;
}

describe("FoldLedger", () => {
  it("has the spec's defaults", () => {
    expect(DEFAULT_FOLDING_CONFIG).toMatchObject({
      default_budget: 8192,
      max_budget: 32768,
      max_depth: 3,
      default_timeout_seconds: 300,
      max_timeout_seconds: 600,
      max_concurrent: 10,
    });
  });

  it("opens a fold with the defaults, its depth and its deadline", () => {
    const ledger = new FoldLedger({ now: () => 1000 });
    const result = ledger.open({ description: "find the config loader" });
    expect(result).toEqual({
      ok: true,
      fold: {
        id: "fold-1",
        parentId: null,
        depth: 1,
        description: "find the config loader",
        budget: 8192,
        used: 0,
        timeoutSeconds: 300,
        startedAt: 1000,
        deadline: 301_000,
        status: "open",
        reason: null,
        warned: false,
        endedAt: null,
      },
    });
  });

  it("allows depth 3 and refuses depth 4, naming the depth", () => {
    const ledger = new FoldLedger();
    const a = opened(ledger);
    const b = opened(ledger, a);
    const c = opened(ledger, b);
    expect(ledger.get(c)?.depth).toBe(3);
    const refused = ledger.open({ description: "too deep", parentId: c });
    expect(refused).toEqual({
      ok: false,
      refusal: { code: "depth", message: "fold depth 4 exceeds the maximum depth 3" },
    });
    expect(ledger.openCount).toBe(3);
  });

  it("refuses a parent that is not open", () => {
    const ledger = new FoldLedger();
    const a = opened(ledger);
    ledger.close(a);
    const refused = ledger.open({ description: "x", parentId: a });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.refusal.code).toBe("parent");
  });

  it("refuses more than max_concurrent open folds, and allows one again after a close", () => {
    const ledger = new FoldLedger({ config: { max_concurrent: 2 } });
    const a = opened(ledger);
    opened(ledger);
    const refused = ledger.open({ description: "third" });
    expect(refused).toEqual({
      ok: false,
      refusal: { code: "concurrent", message: "at most 2 folds may be open at once" },
    });
    ledger.close(a);
    expect(ledger.open({ description: "third" }).ok).toBe(true);
  });

  it("refuses a budget or timeout beyond the maximum, naming value and limit", () => {
    const ledger = new FoldLedger();
    expect(ledger.open({ description: "x", budget: 40_000 })).toEqual({
      ok: false,
      refusal: { code: "budget", message: "budget 40000 exceeds the maximum 32768" },
    });
    expect(ledger.open({ description: "x", budget: 0 }).ok).toBe(false);
    expect(ledger.open({ description: "x", timeoutSeconds: 900 })).toEqual({
      ok: false,
      refusal: { code: "timeout", message: "timeout_seconds 900 exceeds the maximum 600" },
    });
    expect(ledger.open({ description: "x", budget: 32768, timeoutSeconds: 600 }).ok).toBe(true);
  });

  it("meters: within below 80%, the warning once at 80%, exhausted at 100%", () => {
    const ledger = new FoldLedger();
    const id = opened(ledger, undefined, 1000);
    expect(ledger.meter(id, 799)).toEqual({
      state: "within",
      warningCrossed: false,
      used: 799,
      budget: 1000,
      left: 201,
    });
    expect(ledger.meter(id, 1)).toEqual({
      state: "warning",
      warningCrossed: true,
      used: 800,
      budget: 1000,
      left: 200,
    });
    expect(ledger.meter(id, 100)).toMatchObject({ state: "warning", warningCrossed: false });
    expect(ledger.meter(id, 100)).toMatchObject({ state: "exhausted", left: 0, used: 1000 });
    expect(ledger.meter(id, 50)).toMatchObject({ state: "exhausted", left: 0, used: 1050 });
    expect(budgetWarningText(200)).toBe("200 tokens left: finish and return.");
  });

  it("a single count past 100% is both the warning crossing and exhaustion", () => {
    const ledger = new FoldLedger();
    const id = opened(ledger, undefined, 100);
    expect(ledger.meter(id, 150)).toMatchObject({
      state: "exhausted",
      warningCrossed: true,
      left: 0,
    });
  });

  it("closes normally or forced with the reason and tokens used; the first close wins", () => {
    let now = 0;
    const ledger = new FoldLedger({ now: () => now });
    const a = opened(ledger);
    const b = opened(ledger);
    ledger.meter(a, 300);
    now = 2500;
    expect(ledger.close(a)).toEqual({
      id: a,
      forced: false,
      reason: null,
      tokensUsed: 300,
      budget: 8192,
      durationMs: 2500,
      openChildren: [],
    });
    expect(ledger.close(a, "timeout")).toBeNull();
    expect(ledger.close(b, "budget")).toMatchObject({ forced: true, reason: "budget" });
    expect(ledger.get(b)).toMatchObject({ status: "forced", reason: "budget", endedAt: 2500 });
    // a closed fold counts nothing more
    expect(ledger.meter(a, 1000).used).toBe(300);
  });

  it("names the children still open when a parent closes", () => {
    const ledger = new FoldLedger();
    const parent = opened(ledger);
    const child = opened(ledger, parent);
    const done = opened(ledger, parent);
    ledger.close(done);
    expect(ledger.close(parent)?.openChildren).toEqual([child]);
  });

  it("lists expired folds from their deadlines (no timers of its own)", () => {
    let now = 0;
    const ledger = new FoldLedger({ now: () => now });
    const short = ledger.open({ description: "s", timeoutSeconds: 10 });
    const long = ledger.open({ description: "l", timeoutSeconds: 100 });
    if (!short.ok || !long.ok) throw new Error("not opened");
    expect(ledger.expired()).toEqual([]);
    now = 10_000;
    expect(ledger.expired()).toEqual([short.fold.id]);
    ledger.close(short.fold.id, "timeout");
    expect(ledger.expired(200_000)).toEqual([long.fold.id]);
  });

  it("lists every fold in order, copies only, and finds the innermost open one", () => {
    const ledger = new FoldLedger();
    const a = opened(ledger);
    const b = opened(ledger, a);
    const listed = ledger.status();
    expect(listed.map((f) => [f.id, f.depth, f.status])).toEqual([
      [a, 1, "open"],
      [b, 2, "open"],
    ]);
    const first = listed[0];
    if (first) first.used = 999;
    expect(ledger.get(a)?.used).toBe(0);
    expect(ledger.innermostOpen()?.id).toBe(b);
    ledger.close(b);
    expect(ledger.innermostOpen()?.id).toBe(a);
    expect(ledger.openIds()).toEqual([a]);
  });

  it("throws for an id it never issued", () => {
    expect(() => new FoldLedger().meter("nope", 1)).toThrow("no fold nope");
  });
});
