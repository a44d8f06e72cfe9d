import { describe, expect, it } from "vitest";
import { dateGroupLabel, groupByDate } from "./session-groups.js";

// local times, as the reader's calendar counts days
const now = new Date(2026, 10, 28, 9, 30);
const at = (month: number, day: number, hour = 12) =>
  new Date(2026, month, day, hour).toISOString();

describe("dateGroupLabel", () => {
  it("counts calendar days, not 24-hour spans", () => {
    expect(dateGroupLabel(at(10, 28, 0), now)).toBe("Today");
    expect(dateGroupLabel(at(10, 27, 23), now)).toBe("Yesterday");
    expect(dateGroupLabel(at(10, 27, 0), now)).toBe("Yesterday");
    expect(dateGroupLabel(at(10, 26, 23), now)).toBe("Previous 7 days");
  });

  it("puts 2–7 days in the week, 8–30 in the month, older by month and year", () => {
    expect(dateGroupLabel(at(10, 21), now)).toBe("Previous 7 days");
    expect(dateGroupLabel(at(10, 20), now)).toBe("Previous 30 days");
    expect(dateGroupLabel(at(9, 29), now)).toBe("Previous 30 days");
    expect(dateGroupLabel(at(9, 28), now)).toBe("October 2026");
    expect(dateGroupLabel(new Date(2025, 10, 30).toISOString(), now)).toBe("November 2025");
  });

  it("counts a future time (a clock ahead) as today and an unreadable one as older", () => {
    expect(dateGroupLabel(at(11, 2), now)).toBe("Today");
    expect(dateGroupLabel("not a date", now)).toBe("Older");
  });
});

describe("groupByDate", () => {
  it("keeps the input's order within and between groups", () => {
    const items = [
      { id: "a", at: at(10, 28) },
      { id: "b", at: at(10, 28, 1) },
      { id: "c", at: at(10, 25) },
      { id: "d", at: at(8, 1) },
      { id: "e", at: at(7, 31) },
    ];
    const groups = groupByDate(items, (i) => i.at, now);
    expect(groups.map((g) => [g.label, g.items.map((i) => i.id)])).toEqual([
      ["Today", ["a", "b"]],
      ["Previous 7 days", ["c"]],
      ["September 2026", ["d"]],
      ["August 2026", ["e"]],
    ]);
  });
});
