import { describe, expect, it } from "vitest";
import { safeNextPath } from "./next-path";

describe("safeNextPath", () => {
  it("keeps a path of this site with its query and hash", () => {
    expect(safeNextPath("/sessions/abc?branch=b1#m3")).toBe("/sessions/abc?branch=b1#m3");
    expect(safeNextPath("/settings/account")).toBe("/settings/account");
    expect(safeNextPath("/")).toBe("/");
  });

  it("refuses anything that leaves the site", () => {
    for (const next of [
      "https://evil.example/",
      "http://evil.example",
      "//evil.example/path",
      "/\\evil.example",
      "\\\\evil.example",
      "/\t/evil.example",
      "javascript:alert(1)",
      "evil.example",
      "data:text/html,hi",
      " /sessions",
      "/%0a/evil.example",
    ]) {
      const safe = safeNextPath(next);
      expect(new URL(safe, "http://arbor.invalid").origin, next).toBe("http://arbor.invalid");
      expect(safe.startsWith("//"), next).toBe(false);
    }
    expect(safeNextPath("https://evil.example/")).toBe("/");
    expect(safeNextPath("//evil.example/path")).toBe("/");
    expect(safeNextPath("/\\evil.example")).toBe("/");
  });

  it("falls back to the home page when there is no next or it is a sign-in page", () => {
    expect(safeNextPath(null)).toBe("/");
    expect(safeNextPath(undefined)).toBe("/");
    expect(safeNextPath("")).toBe("/");
    expect(safeNextPath("/login?next=/x")).toBe("/");
    expect(safeNextPath("/invite/abc")).toBe("/");
  });
});
