import { describe, expect, it } from "vitest";
import { isLoopbackHost, servingBeyondLoopback } from "./exposure";

describe("servingBeyondLoopback", () => {
  it("is false for the default and loopback hosts", () => {
    expect(servingBeyondLoopback({})).toBe(false);
    expect(servingBeyondLoopback({ HOST: "" })).toBe(false);
    for (const host of ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.1.1", " LOCALHOST "]) {
      expect([host, servingBeyondLoopback({ HOST: host })]).toEqual([host, false]);
    }
  });

  it("is true for a host others can reach", () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.20", "arbor.example.com", "127.0.0.1.nip.io"]) {
      expect([host, servingBeyondLoopback({ HOST: host })]).toEqual([host, true]);
    }
  });

  it("is true behind a proxy: a loopback HOST that answers to other names", () => {
    expect(servingBeyondLoopback({ ARBOR_ALLOWED_HOSTS: "arbor.example.com" })).toBe(true);
    expect(servingBeyondLoopback({ ARBOR_ALLOWED_HOSTS: " , " })).toBe(false);
  });

  it("knows loopback addresses", () => {
    expect(isLoopbackHost("127.255.255.254")).toBe(true);
    expect(isLoopbackHost("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopbackHost("128.0.0.1")).toBe(false);
    expect(isLoopbackHost("127.0.0.256")).toBe(false);
  });
});
