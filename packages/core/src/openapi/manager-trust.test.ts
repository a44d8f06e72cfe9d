import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemorySessionStore } from "../store/memory-store.js";
import { recordingLogger } from "../testing/mcp-servers.js";
import { petstoreSpecPath } from "../testing/petstore-server.js";
import { WorkspaceTrust } from "../trust/workspace-trust.js";
import { openApiConfigPath } from "./config.js";
import { OPENAPI_TRUST_FILE, OpenApiManager } from "./manager.js";

// Issue #24: .arbor/openapi.json is the workspace's: an entry's spec is not read (a URL not
// fetched) and its tools not offered until a person trusts the entry and its spec file as they
// are now; an edit of the spec file asks again.

let requests: string[] = [];
let specServer: { url: string; close(): Promise<void> };

beforeAll(async () => {
  const yaml = readFileSync(petstoreSpecPath(), "utf8");
  const server = createServer((req, res) => {
    requests.push(req.url ?? "");
    res.writeHead(200, { "content-type": "application/yaml" });
    res.end(yaml);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  specServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
afterAll(() => specServer.close());

describe("OpenApiManager and workspace trust", () => {
  it("reads nothing and fetches nothing before trust; trusting reads it; an edited spec asks again", async () => {
    requests = [];
    const root = mkdtempSync(join(tmpdir(), "arbor-openapi-trust-"));
    mkdirSync(join(root, ".arbor"));
    writeFileSync(join(root, "petstore.yaml"), readFileSync(petstoreSpecPath()));
    writeFileSync(
      openApiConfigPath(root),
      JSON.stringify([
        { spec: "petstore.yaml", auth: { type: "api_key", env: "PETSTORE_KEY" } },
        { spec: `${specServer.url}/remote.yaml`, name_prefix: "remote" },
      ]),
    );
    const trust = new WorkspaceTrust({ store: new InMemorySessionStore(), workspace: root });
    await trust.refresh();
    const manager = new OpenApiManager({
      configPath: openApiConfigPath(root),
      workspaceRoot: root,
      env: {
        PETSTORE_KEY: "k",
        ARBOR_OPENAPI_ENV: "PETSTORE_KEY",
        ARBOR_OPENAPI_ALLOW_LOOPBACK: "1",
      },
      logger: recordingLogger(),
      trust,
    });
    try {
      await manager.start();
      await manager.settled();
      expect(requests).toEqual([]);
      expect(manager.specs().map((s) => s.status)).toEqual(["untrusted", "untrusted"]);
      expect(manager.specs()[0]?.error).toContain("is not trusted");
      expect(manager.tools()).toEqual([]);
      const definitions = manager.definitions();
      expect(definitions.map((d) => [d.file, d.name])).toEqual([
        [OPENAPI_TRUST_FILE, "petstore.yaml"],
        [OPENAPI_TRUST_FILE, `${specServer.url}/remote.yaml`],
      ]);
      expect(definitions[0]?.runs.credential).toMatchObject({
        env: "PETSTORE_KEY",
        type: "api_key",
      });
      expect(definitions[1]?.runs.fetches).toEqual([`${specServer.url}/remote.yaml`]);

      await trust.trust(definitions[1]!, "owner");
      await manager.settled();
      expect(requests).toEqual(["/remote.yaml"]);
      expect(manager.specs().map((s) => s.status)).toEqual(["untrusted", "loaded"]);
      expect(manager.tools().every((t) => t.name.startsWith("remote__"))).toBe(true);

      await trust.trust(definitions[0]!, "owner");
      await manager.settled();
      expect(manager.specs()[0]?.status).toBe("loaded");

      // the spec file is edited: the entry is changed, its tools go at the next review
      writeFileSync(
        join(root, "petstore.yaml"),
        `${readFileSync(petstoreSpecPath(), "utf8")}\n# edited\n`,
      );
      await manager.reviewTrust();
      expect(manager.specs()[0]?.status).toBe("untrusted");
      expect(trust.status(manager.definitions()[0]!)).toBe("changed");
      expect(manager.tools().every((t) => t.name.startsWith("remote__"))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("hashing a spec reads nothing outside the workspace: a symlink out hashes as empty", async () => {
    const root = mkdtempSync(join(tmpdir(), "arbor-openapi-trust-"));
    const outside = join(mkdtempSync(join(tmpdir(), "arbor-openapi-outside-")), "secret.yaml");
    mkdirSync(join(root, ".arbor"));
    writeFileSync(outside, "FIRST-CONTENT");
    symlinkSync(outside, join(root, "spec.yaml"));
    writeFileSync(openApiConfigPath(root), JSON.stringify([{ spec: "spec.yaml" }]));
    const trust = new WorkspaceTrust({ store: new InMemorySessionStore(), workspace: root });
    await trust.refresh();
    const manager = new OpenApiManager({
      configPath: openApiConfigPath(root),
      workspaceRoot: root,
      env: {},
      logger: recordingLogger(),
      trust,
    });
    try {
      await manager.start();
      await manager.settled();
      const before = manager.definitions()[0]?.hash;
      // were the outside file read, its new bytes would change the hash
      writeFileSync(outside, "SECOND-CONTENT");
      await manager.reviewTrust();
      expect(manager.definitions()[0]?.hash).toBe(before);
      await trust.trust(manager.definitions()[0]!, "owner");
      await manager.settled();
      expect(manager.specs()[0]).toMatchObject({ status: "failed" });
      expect(manager.specs()[0]?.error).toContain("only inside the workspace");
      expect(JSON.stringify(manager.specs())).not.toContain("-CONTENT");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
