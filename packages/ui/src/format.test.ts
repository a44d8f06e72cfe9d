import { describe, expect, it } from "vitest";
import {
  costText,
  formatCost,
  formatDuration,
  formatRelativeTime,
  formatTokens,
  plural,
} from "./format.js";

describe("formatTokens", () => {
  it("abbreviates thousands and millions", () => {
    expect(formatTokens(999)).toBe("999");
    expect(formatTokens(1500)).toBe("1.5k");
    expect(formatTokens(18_000)).toBe("18k");
    expect(formatTokens(120_000)).toBe("120k");
    expect(formatTokens(1_250_000)).toBe("1.3M");
    expect(formatTokens(2_000_000)).toBe("2M");
  });
});

describe("formatDuration", () => {
  it("picks a unit by size", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(1240)).toBe("1.2 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
    expect(formatDuration(120_000)).toBe("2 min");
  });
});

describe("formatRelativeTime", () => {
  const now = new Date("2025-06-10T12:00:00Z");
  it("counts back from now", () => {
    expect(formatRelativeTime("2025-06-10T11:59:30Z", now)).toBe("just now");
    expect(formatRelativeTime("2025-06-10T11:55:00Z", now)).toBe("5 min ago");
    expect(formatRelativeTime("2025-06-10T09:00:00Z", now)).toBe("3 h ago");
    expect(formatRelativeTime("2025-06-08T12:00:00Z", now)).toBe("2 d ago");
    expect(formatRelativeTime("2025-05-01T12:00:00Z", now)).toBe("2025-05-01");
  });
});

describe("formatCost and plural", () => {
  it("formats", () => {
    expect(formatCost(1.234)).toBe("$1.23");
    expect(formatCost(0.0012)).toBe("$0.0012");
    expect(formatCost(0.0042)).toBe("$0.0042");
    expect(formatCost(0.00004)).toBe("<$0.0001");
    expect(formatCost(0)).toBe("$0.00");
    expect(plural(1, "tool")).toBe("1 tool");
    expect(plural(5, "tool")).toBe("5 tools");
  });
});

describe("costText", () => {
  it("never shows a made-up number: no price is said in words, a partial price says so", () => {
    expect(costText({ cost_usd: 0.0042, cost_complete: true })).toBe("$0.0042");
    expect(costText({ cost_usd: 12.5, cost_complete: true })).toBe("$12.50");
    expect(costText({ cost_usd: null, cost_complete: false })).toBe("no price for this model");
    expect(costText({ cost_usd: 0.02, cost_complete: false })).toBe(
      "$0.02 + tokens without a price",
    );
    expect(costText({ cost_usd: 0, cost_complete: true })).toBe("$0.00");
    // an answer from before costs were shown: nothing said
    expect(costText({})).toBeUndefined();
    expect(costText(undefined)).toBeUndefined();
  });
});
