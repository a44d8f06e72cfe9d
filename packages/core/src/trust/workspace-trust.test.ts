import { describe, expect, it } from "vitest";
import { InMemorySessionStore } from "../store/memory-store.js";
import { canonicalJson, definitionHash } from "./definitions.js";
import { WorkspaceTrust } from "./workspace-trust.js";

const definition = (hash: string) => ({
  kind: "mcp_server" as const,
  file: "mcp_servers.json",
  name: "tools",
  hash,
  runs: { command: "node", args: ["server.js"] },
});

describe("definitionHash", () => {
  it("ignores key order and whitespace, sees every value and the spec's bytes", () => {
    const a = definitionHash({ command: "node", args: ["a"], env: { X: "1", Y: "2" } });
    const b = definitionHash(
      JSON.parse('{"env":{"Y":"2","X":"1"},  "args":["a"],"command":"node"}'),
    );
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(definitionHash({ command: "node", args: ["b"], env: { X: "1", Y: "2" } })).not.toBe(a);
    expect(definitionHash({ spec: "s.yaml" }, "one")).not.toBe(
      definitionHash({ spec: "s.yaml" }, "two"),
    );
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});

describe("WorkspaceTrust", () => {
  it("trusts by hash: untrusted, trusted, changed after an edit, untrusted after a revoke", async () => {
    const store = new InMemorySessionStore();
    const trust = new WorkspaceTrust({ store, workspace: "/ws" });
    await trust.refresh();
    const v1 = definition("1".repeat(64));
    const v2 = definition("2".repeat(64));
    expect(trust.status(v1)).toBe("untrusted");
    const record = await trust.trust(v1, "owner");
    expect(record).toMatchObject({
      workspace: "/ws",
      file: "mcp_servers.json",
      trusted_by: "owner",
    });
    expect(trust.status(v1)).toBe("trusted");
    expect(trust.status(v2)).toBe("changed");
    expect(trust.isTrusted(v2)).toBe(false);
    // another workspace on the same database is not trusted by it
    const other = new WorkspaceTrust({ store, workspace: "/other" });
    await other.refresh();
    expect(other.status(v1)).toBe("untrusted");
    await trust.revoke(v1);
    expect(trust.status(v1)).toBe("untrusted");
  });

  it("trustAll trusts what has no record; listeners hear changes made through another instance", async () => {
    const store = new InMemorySessionStore();
    const all = new WorkspaceTrust({ store, workspace: "/ws", trustAll: true });
    expect(all.status(definition("3".repeat(64)))).toBe("trusted");

    const a = new WorkspaceTrust({ store, workspace: "/ws" });
    const b = new WorkspaceTrust({ store, workspace: "/ws" });
    await a.refresh();
    await b.refresh();
    let heard = 0;
    b.onChange(() => heard++);
    await a.trust(definition("4".repeat(64)), "owner");
    expect(b.isTrusted(definition("4".repeat(64)))).toBe(false);
    const stop = b.poll(10, () => undefined);
    try {
      await expect.poll(() => heard, { timeout: 2000 }).toBe(1);
      expect(b.isTrusted(definition("4".repeat(64)))).toBe(true);
      // nothing changed: no further call
      await new Promise((r) => setTimeout(r, 50));
      expect(heard).toBe(1);
    } finally {
      stop();
    }
  });
});
