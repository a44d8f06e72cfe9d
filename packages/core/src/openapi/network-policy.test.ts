import { describe, expect, it } from "vitest";
import {
  assertReachable,
  forbiddenAddress,
  forbiddenHost,
  networkPolicyFromEnv,
} from "./network-policy.js";

const strict = { allowLoopback: false };
const loopbackOk = { allowLoopback: true };

describe("forbiddenAddress / forbiddenHost", () => {
  it("refuses link-local and cloud metadata addresses, even with loopback allowed", () => {
    for (const address of [
      "169.254.169.254",
      "169.254.0.1",
      "fe80::1",
      "febf::1",
      "fd00:ec2::254",
      "fd00:ec2:0:0:0:0:0:254",
      "::ffff:169.254.169.254",
      "::ffff:a9fe:a9fe",
      "100.100.100.200",
    ]) {
      expect(forbiddenAddress(address, loopbackOk), address).toBeDefined();
    }
    expect(forbiddenAddress("169.254.169.254", strict)).toContain("metadata");
    expect(forbiddenAddress("169.254.10.10", strict)).toContain("link-local");
  });

  it("refuses loopback unless ARBOR_OPENAPI_ALLOW_LOOPBACK=1", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "0.0.0.0", "::", "::ffff:7f00:1"]) {
      expect(forbiddenAddress(address, strict), address).toContain("ARBOR_OPENAPI_ALLOW_LOOPBACK");
      expect(forbiddenAddress(address, loopbackOk), address).toBeUndefined();
    }
    expect(networkPolicyFromEnv({ ARBOR_OPENAPI_ALLOW_LOOPBACK: "1" })).toEqual(loopbackOk);
    expect(networkPolicyFromEnv({ ARBOR_OPENAPI_ALLOW_LOOPBACK: "true" })).toEqual(strict);
    expect(networkPolicyFromEnv({})).toEqual(strict);
  });

  it("lets public and private-network addresses through", () => {
    for (const address of ["93.184.216.34", "10.0.0.5", "192.168.1.2", "2606:4700::1", "fd00::1"]) {
      expect(forbiddenAddress(address, strict), address).toBeUndefined();
    }
  });

  it("judges URLs by their host as the URL parser reads it (decimal, hex, brackets, names)", () => {
    expect(forbiddenHost("http://169.254.169.254/latest/meta-data/", loopbackOk)).toContain(
      "metadata",
    );
    // other spellings of the same addresses
    expect(forbiddenHost("http://2852039166/", loopbackOk)).toContain("metadata");
    expect(forbiddenHost("http://0xa9.0xfe.0xa9.0xfe/", loopbackOk)).toContain("metadata");
    expect(forbiddenHost("http://[fd00:ec2::254]/", loopbackOk)).toContain("metadata");
    expect(forbiddenHost("http://[::ffff:169.254.169.254]/", loopbackOk)).toBeDefined();
    expect(
      forbiddenHost("http://metadata.google.internal/computeMetadata/v1/", loopbackOk),
    ).toContain("metadata");
    expect(forbiddenHost("http://METADATA.google.internal./", loopbackOk)).toBeDefined();
    expect(forbiddenHost("http://localhost:8080/", strict)).toContain("loopback");
    expect(forbiddenHost("http://api.localhost/", strict)).toContain("loopback");
    expect(forbiddenHost("http://2130706433/", strict)).toContain("loopback");
    expect(forbiddenHost("http://[::1]:9/", strict)).toContain("loopback");
    expect(forbiddenHost("http://localhost:8080/", loopbackOk)).toBeUndefined();
    expect(forbiddenHost("https://api.example.com/v1", strict)).toBeUndefined();
  });
});

describe("assertReachable (at call time)", () => {
  it("refuses a name that resolves to a forbidden address (a DNS trick)", async () => {
    const lookup = async (name: string) =>
      name === "rebind.example"
        ? [{ address: "93.184.216.34" }, { address: "169.254.169.254" }]
        : [];
    await expect(assertReachable("http://rebind.example/x", loopbackOk, lookup)).rejects.toThrow(
      /rebind\.example resolves to 169\.254\.169\.254 is a cloud metadata address/,
    );
    const toLoopback = async () => [{ address: "127.0.0.1" }];
    await expect(assertReachable("https://evil.example/", strict, toLoopback)).rejects.toThrow(
      /loopback/,
    );
    await expect(assertReachable("https://evil.example/", loopbackOk, toLoopback)).resolves.toBe(
      undefined,
    );
  });

  it("resolves with the system resolver by default: localhost's addresses are loopback", async () => {
    await expect(assertReachable("http://localhost:9/", strict)).rejects.toThrow(/loopback/);
    await expect(assertReachable("http://127.0.0.1:9/", loopbackOk)).resolves.toBe(undefined);
    await expect(assertReachable("http://no-such-host.invalid/", strict)).rejects.toThrow(
      /cannot resolve no-such-host\.invalid/,
    );
  });
});
