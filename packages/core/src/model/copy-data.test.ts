import { describe, expect, it } from "vitest";
import { copyData } from "./copy-data.js";

describe("copyData", () => {
  it("copies nested plain data deeply: equal, sharing nothing", () => {
    const value = {
      id: "m1",
      n: 3,
      ok: true,
      none: null,
      missing: undefined,
      big: 10n,
      body: { calls: [{ id: "c1", arguments: { path: "a.ts", deep: [[1, 2], { x: "y" }] } }] },
    };
    const copied = copyData(value);
    expect(copied).toStrictEqual(value);
    expect(copied).toStrictEqual(structuredClone(value));
    expect(Object.hasOwn(copied, "missing")).toBe(true);
    expect(copied.body).not.toBe(value.body);
    expect(copied.body.calls[0]?.arguments.deep[0]).not.toBe(
      value.body.calls[0]?.arguments.deep[0],
    );
    copied.body.calls[0]!.arguments.path = "changed";
    expect(value.body.calls[0]?.arguments.path).toBe("a.ts");
  });

  it("makes an unfrozen copy of frozen data", () => {
    const value = Object.freeze({ list: Object.freeze([Object.freeze({ a: 1 })]) });
    const copied = copyData(value);
    expect(Object.isFrozen(copied)).toBe(false);
    expect(Object.isFrozen(copied.list)).toBe(false);
    expect(Object.isFrozen(copied.list[0])).toBe(false);
  });

  it("keeps an own __proto__ key a property and copies null-prototype objects", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<
      string,
      unknown
    >;
    const copied = copyData(value);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.hasOwn(copied, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: { b: 1 } });
    expect(copyData(bare)).toEqual({ a: { b: 1 } });
  });

  it("copies what is not plain data as structuredClone does", () => {
    const date = new Date("2026-11-27T10:00:00Z");
    const value = { at: date, map: new Map([["k", { v: 1 }]]), bytes: new Uint8Array([1, 2]) };
    const copied = copyData(value);
    expect(copied.at).toBeInstanceOf(Date);
    expect(copied.at).not.toBe(date);
    expect(copied.at.getTime()).toBe(date.getTime());
    expect(copied.map.get("k")).toEqual({ v: 1 });
    expect(copied.map).not.toBe(value.map);
    expect([...copied.bytes]).toEqual([1, 2]);
    class Point {
      constructor(
        public x: number,
        public y: number,
      ) {}
    }
    expect(copyData({ p: new Point(1, 2) })).toStrictEqual(structuredClone({ p: new Point(1, 2) }));
  });

  it("throws structuredClone's error for a function", () => {
    expect(() => copyData({ f: () => 1 })).toThrow(/could not be cloned/);
  });

  it("copies a cycle (through structuredClone) instead of recursing forever", () => {
    const value: { name: string; self?: unknown } = { name: "loop" };
    value.self = value;
    const copied = copyData(value) as { name: string; self: { name: string; self: unknown } };
    expect(copied).not.toBe(value);
    expect(copied.self).toBe(copied);
    expect(copied.name).toBe("loop");
  });
});
