import { describe, expect, it } from "vitest";
import { roleFromClaim, ssoRole } from "./sso-roles";

describe("roleFromClaim", () => {
  it("reads a string or an array and takes the strongest role named", () => {
    expect(roleFromClaim("admin")).toBe("admin");
    expect(roleFromClaim(" Viewer ")).toBe("viewer");
    expect(roleFromClaim(["viewer", "admin", "staff"])).toBe("admin");
    expect(roleFromClaim(["member", "viewer"])).toBe("member");
    expect(roleFromClaim("viewer member")).toBe("member");
    expect(roleFromClaim("viewer,admin")).toBe("admin");
  });

  it("never grants owner and ignores what names no role", () => {
    expect(roleFromClaim("owner")).toBeUndefined();
    expect(roleFromClaim(["owner", "viewer"])).toBe("viewer");
    expect(roleFromClaim(["staff", 3, null])).toBeUndefined();
    expect(roleFromClaim(undefined)).toBeUndefined();
    expect(roleFromClaim({ admin: true })).toBeUndefined();
    expect(roleFromClaim(42)).toBeUndefined();
  });
});

describe("ssoRole", () => {
  it("takes the claim's role, keeps the current one without it, and never moves the owner", () => {
    expect(ssoRole("member", "admin")).toBe("admin");
    expect(ssoRole("admin", "viewer")).toBe("viewer");
    expect(ssoRole("viewer", undefined)).toBe("viewer");
    expect(ssoRole("owner", "viewer")).toBe("owner");
  });
});
