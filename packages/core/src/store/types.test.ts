import { describe, expect, it } from "vitest";
import { StoreError } from "./types.js";

describe("StoreError", () => {
  it("is recognised when another copy of core made it (the app's bundle and packages/db)", () => {
    class OtherCopy extends Error {
      readonly code = "not_found";
      constructor(message: string) {
        super(message);
        this.name = "StoreError";
      }
    }
    const error: unknown = new OtherCopy("no session s1");
    expect(error instanceof StoreError).toBe(true);
    expect(new StoreError("conflict", "x")).toBeInstanceOf(StoreError);
  });

  it("is not any error that merely carries a code", () => {
    expect(Object.assign(new Error("x"), { code: "ENOENT" }) instanceof StoreError).toBe(false);
    expect({ name: "StoreError", code: "not_found" } instanceof StoreError).toBe(false);
  });
});
