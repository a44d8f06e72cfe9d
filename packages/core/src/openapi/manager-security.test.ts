import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemorySessionStore } from "../store/memory-store.js";
import { recordingLogger } from "../testing/mcp-servers.js";
import { ToolRegistry } from "../tools/registry.js";
import { type AnyAgentTool, ToolError } from "../tools/tool.js";
import { WorkspaceTrust } from "../trust/workspace-trust.js";
import { openApiConfigPath } from "./config.js";
import { OpenApiManager, type OpenApiManagerOptions } from "./manager.js";

// Issue #24: what a workspace's .arbor/openapi.json (and the specs it names) can make the server
// do. Real HTTP servers on 127.0.0.1 stand in for the API and for an attacker's host (a
// different port is a different origin); the files are real files, the symlinks real symlinks.

interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

interface Fixture {
  url: string;
  host: string;
  requests: Recorded[];
  close(): Promise<void>;
}

type Route = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(routes: Record<string, Route>): Promise<Fixture> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const path = (req.url ?? "/").split("?")[0] as string;
    const route = routes[path];
    if (route) route(req, res);
    else res.writeHead(404, { "content-type": "text/plain" }).end("not here");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const json =
  (body: unknown): Route =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
const redirect =
  (location: () => string, status = 302): Route =>
  (_req, res) => {
    res.writeHead(status, { location: location() }).end();
  };

const SECRET = "TOPSECRET-4c1d9e7f02";
const API_KEY = "api-key-77a1c3e9d5";

/** A one-operation spec; `extra` is merged into the operation. */
function miniSpec(server: string | undefined, extra: Record<string, unknown> = {}) {
  return {
    openapi: "3.0.3",
    info: { title: "Mini", version: "1" },
    ...(server !== undefined ? { servers: [{ url: server }] } : {}),
    paths: {
      "/thing/{id}": {
        get: {
          operationId: "getThing",
          summary: "Reads a thing",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" } },
            { name: "q", in: "query", schema: { type: "string" } },
          ],
          responses: { "200": { description: "the thing" } },
          ...extra,
        },
      },
    },
  };
}

let capture: Fixture; // the attacker's host
let api: Fixture; // the API the entry is configured for
let outside: string; // a directory outside every workspace, holding a secret

beforeAll(async () => {
  capture = await serve({
    "/ref.yaml": (_req, res) => res.writeHead(200).end("fetched from the capture server"),
    "/spec.json": json(miniSpec("https://api.example.com")),
    "/steal": json({ stolen: true }),
    // 11 MiB of a YAML comment, without a Content-Length: refused once 10 MiB have arrived
    "/huge.yaml": (_req, res) => {
      res.writeHead(200, { "content-type": "application/yaml" });
      const chunk = `#${"x".repeat(1024 * 1024 - 2)}\n`;
      for (let i = 0; i < 11; i++) res.write(chunk);
      res.end();
    },
  });
  api = await serve({
    "/v2/thing/1": json({ id: 1 }),
    "/v2/thing/away": redirect(() => `${capture.url}/steal`),
    "/v2/thing/away307": redirect(() => `${capture.url}/steal`, 307),
    "/v2/thing/same": redirect(() => "/v2/thing/1"),
  });
  outside = mkdtempSync(join(tmpdir(), "arbor-outside-"));
  writeFileSync(join(outside, "secret.txt"), SECRET);
});
afterAll(async () => {
  await capture.close();
  await api.close();
});

function workspace(entries: unknown, files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "arbor-openapi-sec-"));
  mkdirSync(join(root, ".arbor"));
  mkdirSync(join(root, "apis"));
  writeFileSync(openApiConfigPath(root), JSON.stringify(entries));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  return root;
}

async function started(
  root: string,
  options: Partial<OpenApiManagerOptions> = {},
  env: Record<string, string> = {},
) {
  const manager = new OpenApiManager({
    configPath: openApiConfigPath(root),
    workspaceRoot: root,
    env: {
      ARBOR_OPENAPI_ENV: "API_KEY",
      ARBOR_OPENAPI_ALLOW_LOOPBACK: "1",
      API_KEY,
      ...env,
    },
    logger: recordingLogger(),
    ...options,
  });
  await manager.start();
  await manager.settled();
  return manager;
}

const ctx = (name: string) => ({
  toolCallId: "call_1",
  toolName: name,
  signal: new AbortController().signal,
  onUpdate: () => undefined,
  onProgress: () => undefined,
});

async function failure(tool: AnyAgentTool | undefined, args: Record<string, unknown>) {
  if (tool === undefined) throw new Error("no such tool");
  try {
    await tool.execute(args, ctx(tool.name));
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("the call succeeded");
}

/** Everything the model and the settings get from the manager. */
function everythingShown(manager: OpenApiManager): string {
  const tools = manager.tools().map((t) => [t.name, t.label, t.description, t.inputSchema]);
  return JSON.stringify([manager.specs(), tools]);
}

const specWithDescriptionRef = (ref: string) =>
  JSON.stringify(miniSpec("https://api.example.com", { description: { $ref: ref } }));

describe("$ref reads only files inside the workspace", () => {
  it("refuses an absolute path outside, a .. escape and a symlink pointing out, naming the path", async () => {
    const cases = [
      join(outside, "secret.txt"),
      `../${"../".repeat(8)}${join(outside, "secret.txt").slice(1)}`,
      "./link.txt",
      "/proc/self/environ",
    ];
    for (const ref of cases) {
      const root = workspace([{ spec: "apis/spec.json" }], {
        "apis/spec.json": specWithDescriptionRef(ref),
      });
      symlinkSync(join(outside, "secret.txt"), join(root, "apis", "link.txt"));
      const manager = await started(root);
      const [info] = manager.specs();
      expect(info?.status, ref).toBe("failed");
      expect(info?.error, ref).toMatch(
        /refused to read .*: specs and \$refs are read only inside the workspace/,
      );
      expect(manager.tools()).toEqual([]);
      expect(everythingShown(manager)).not.toContain(SECRET);
    }
  });

  it("a symlinked spec file pointing out of the workspace is refused too", async () => {
    writeFileSync(join(outside, "spec.json"), specWithDescriptionRef("./secret.txt"));
    const root = workspace([{ spec: "apis/spec.json" }]);
    symlinkSync(join(outside, "spec.json"), join(root, "apis", "spec.json"));
    const [info] = (await started(root)).specs();
    expect(info?.error).toContain(`(it resolves to ${join(outside, "spec.json")})`);
  });

  it("refuses the data directory even when it lies inside the workspace", async () => {
    const root = workspace([{ spec: "apis/spec.json" }], {
      "apis/spec.json": specWithDescriptionRef("../.data/token"),
    });
    mkdirSync(join(root, ".data"));
    writeFileSync(join(root, ".data", "token"), SECRET);
    const manager = await started(root, { hiddenPaths: [join(root, ".data")] });
    expect(manager.specs()[0]?.error).toContain("inside Arbor's data directory");
    expect(everythingShown(manager)).not.toContain(SECRET);
  });

  it("reads $refs to files inside the workspace", async () => {
    const root = workspace([{ spec: "apis/spec.json" }], {
      "apis/spec.json": specWithDescriptionRef("./notes.yaml"),
      "apis/notes.yaml": "Describes the thing in detail",
    });
    const manager = await started(root);
    expect(manager.specs()[0]?.status).toBe("loaded");
    expect(manager.tools()[0]?.description).toContain("Describes the thing in detail");
  });
});

describe("URLs are fetched only when the entry is allowed remote access", () => {
  it("a $ref URL and a URL spec are not fetched by default; allowed, they are", async () => {
    const files = { "apis/spec.json": specWithDescriptionRef(`${capture.url}/ref.yaml`) };
    const entries = [{ spec: "apis/spec.json" }, { spec: `${capture.url}/spec.json` }];
    const before = capture.requests.length;
    const refused = await started(workspace(entries, files));
    expect(refused.specs().map((s) => s.status)).toEqual(["failed", "failed"]);
    expect(refused.specs()[0]?.error).toContain(
      `${capture.url}/ref.yaml not fetched: this entry may not fetch URLs`,
    );
    expect(refused.specs()[1]?.error).toContain(`${capture.url}/spec.json not fetched`);
    expect(capture.requests.length).toBe(before);
    const allowed = await started(workspace(entries, files), { allowRemote: () => true });
    expect(allowed.specs().map((s) => s.status)).toEqual(["loaded", "loaded"]);
    expect(capture.requests.slice(before).map((r) => r.url)).toEqual(
      expect.arrayContaining(["/ref.yaml", "/spec.json"]),
    );
  });

  it("with a trust gate, a trusted entry may fetch URLs and an untrusted one is not even read", async () => {
    const entries = [{ spec: `${capture.url}/spec.json` }];
    const trust = (root: string, trustAll: boolean) =>
      new WorkspaceTrust({ store: new InMemorySessionStore(), workspace: root, trustAll });
    const before = capture.requests.length;
    const untrustedRoot = workspace(entries);
    const untrusted = await started(untrustedRoot, { trust: trust(untrustedRoot, false) });
    expect(untrusted.specs()[0]?.status).toBe("untrusted");
    expect(capture.requests.length).toBe(before);
    const trustedRoot = workspace(entries);
    const trusted = await started(trustedRoot, { trust: trust(trustedRoot, true) });
    expect(trusted.specs()[0]?.status).toBe("loaded");
    expect(capture.requests.slice(before).map((r) => r.url)).toEqual(["/spec.json"]);
  });

  it("a remote spec over 10 MiB is refused", async () => {
    const manager = await started(workspace([{ spec: `${capture.url}/huge.yaml` }]), {
      allowRemote: () => true,
    });
    expect(manager.specs()[0]?.error).toBe(
      `${capture.url}/huge.yaml is larger than 10485760 bytes: not read`,
    );
  });

  it("allowed remote access still refuses metadata addresses and loopback without the setting", async () => {
    const files = { "apis/spec.json": specWithDescriptionRef("http://169.254.169.254/latest/") };
    const metadata = await started(workspace([{ spec: "apis/spec.json" }], files), {
      allowRemote: () => true,
    });
    expect(metadata.specs()[0]?.error).toContain("169.254.169.254 is a cloud metadata address");
    const loopback = await started(
      workspace([{ spec: "apis/spec.json" }], {
        "apis/spec.json": specWithDescriptionRef(`${capture.url}/ref.yaml`),
      }),
      { allowRemote: () => true },
      { ARBOR_OPENAPI_ALLOW_LOOPBACK: "0" },
    );
    expect(loopback.specs()[0]?.error).toContain("ARBOR_OPENAPI_ALLOW_LOOPBACK");
  });
});

describe("what a spec's text becomes is redacted of the server's secrets", () => {
  it("descriptions, parameter descriptions and titles; a tool named by a secret is left out", async () => {
    const spec = miniSpec("https://api.example.com", {
      description: `leaks ${SECRET} and ${API_KEY}`,
    });
    spec.info.title = `Title ${SECRET}`;
    (spec.paths["/thing/{id}"].get.parameters[0] as Record<string, unknown>).description =
      `id, not ${SECRET}`;
    const named = miniSpec("https://api.example.com", { operationId: SECRET.replace(/-/g, "_") });
    const auth = { type: "bearer", env: "API_KEY" };
    const root = workspace([{ spec: "apis/spec.json", auth }, { spec: "apis/named.json" }], {
      "apis/spec.json": JSON.stringify(spec),
      "apis/named.json": JSON.stringify(named),
    });
    // the credentials of the entries are redacted, and the server's other secrets
    const manager = await started(root, { secrets: [SECRET, SECRET.replace(/-/g, "_")] });
    const shown = everythingShown(manager);
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain(API_KEY);
    expect(shown).not.toContain(SECRET.replace(/-/g, "_"));
    expect(manager.tools().map((t) => t.name)).toEqual(["getThing"]);
    expect(manager.tools()[0]?.description).toContain("leaks [redacted] and [redacted]");
    expect(manager.specs()[0]?.title).toBe("Title [redacted]");
    expect(manager.specs()[1]?.warnings).toContain(
      "GET /thing/{id}: its tool name holds a secret value: skipped",
    );
  });
});

describe("where calls go, and where the credential goes", () => {
  const entry = (extra: Record<string, unknown> = {}) => ({
    spec: "apis/spec.json",
    base_url: `${api.url}/v2`,
    auth: { type: "api_key", env: "API_KEY", in: "header", name: "x-api-key" },
    ...extra,
  });
  const files = { "apis/spec.json": JSON.stringify(miniSpec(undefined)) };

  it("a redirect to another host is not followed, with or without a credential", async () => {
    for (const withAuth of [true, false]) {
      const e = entry();
      if (!withAuth) delete (e as { auth?: unknown }).auth;
      const manager = await started(workspace([e], files));
      const tool = new ToolRegistry([], [manager]).get("getThing");
      const before = capture.requests.length;
      for (const id of ["away", "away307"]) {
        const error = await failure(tool, { id });
        expect(error.message).toContain(`redirect to ${capture.host} not followed`);
      }
      expect(capture.requests.length).toBe(before);
    }
  });

  it("a same-origin redirect is followed, the credential with it", async () => {
    const manager = await started(workspace([entry()], files));
    const tool = new ToolRegistry([], [manager]).get("getThing");
    const before = api.requests.length;
    const result = await tool?.execute({ id: "same" }, ctx("getThing"));
    expect(JSON.stringify(result?.content)).toContain('{\\"id\\":1}');
    const sent = api.requests.slice(before);
    expect(sent.map((r) => r.url)).toEqual(["/v2/thing/same", "/v2/thing/1"]);
    expect(sent.map((r) => r.headers["x-api-key"])).toEqual([API_KEY, API_KEY]);
  });

  it("the credential goes only to the host configured at load time: an operation's own server elsewhere is not called", async () => {
    const spec = miniSpec(`${api.url}/v2`, { servers: [{ url: capture.url }] });
    const root = workspace([{ spec: "apis/spec.json", auth: entry().auth }], {
      "apis/spec.json": JSON.stringify(spec),
    });
    const manager = await started(root);
    const before = capture.requests.length;
    const error = await failure(new ToolRegistry([], [manager]).get("getThing"), { id: "1" });
    expect(error.message).toContain(
      `its server ${capture.host} is not ${api.host}, the only host API_KEY is sent to`,
    );
    expect(capture.requests.length).toBe(before);
  });

  it("a spec's servers URL on a metadata or link-local address fails the spec", async () => {
    for (const server of ["http://169.254.169.254/latest", "http://[fe80::1]/"]) {
      const root = workspace([{ spec: "apis/spec.json" }], {
        "apis/spec.json": JSON.stringify(miniSpec(server)),
      });
      const [info] = (await started(root)).specs();
      expect(info?.status).toBe("failed");
      expect(info?.error).toMatch(/^server URL .* refused: /);
    }
  });

  it("at call time a host name that resolves to a forbidden address is refused (DNS)", async () => {
    const port = new URL(api.url).port;
    const root = workspace([entry({ base_url: `http://api.example.test:${port}/v2` })], files);
    const manager = await started(root, {
      lookup: async () => [{ address: "169.254.169.254" }],
    });
    const before = api.requests.length;
    const error = await failure(new ToolRegistry([], [manager]).get("getThing"), { id: "1" });
    expect(error.message).toContain(
      "refused: api.example.test resolves to 169.254.169.254 is a cloud metadata address",
    );
    expect(api.requests.length).toBe(before);
  });

  it("describes a pending call for its approval card: method, full URL, the credential's variable, place and host", async () => {
    const manager = await started(
      workspace(
        [
          entry(),
          entry({
            name_prefix: "q",
            auth: { type: "api_key", env: "API_KEY", in: "query", name: "key" },
          }),
          entry({ name_prefix: "b", auth: { type: "bearer", env: "API_KEY" } }),
        ],
        files,
      ),
    );
    const registry = new ToolRegistry([], [manager]);
    expect(await registry.get("getThing")?.describeCall?.({ id: "a b", q: "x&y" })).toEqual({
      kind: "http",
      method: "GET",
      url: `${api.url}/v2/thing/a%20b?q=x%26y`,
      credential: { env: "API_KEY", placement: "header", name: "x-api-key", host: api.host },
    });
    expect(await registry.get("q__getThing")?.describeCall?.({ id: "1" })).toEqual({
      kind: "http",
      method: "GET",
      url: `${api.url}/v2/thing/1?key=[redacted]`,
      credential: { env: "API_KEY", placement: "query", name: "key", host: api.host },
    });
    const bearer = await registry.get("b__getThing")?.describeCall?.({ id: "1" });
    expect(bearer?.kind === "http" ? bearer.credential : undefined).toEqual({
      env: "API_KEY",
      placement: "bearer",
      host: api.host,
    });
    // arguments that make no request describe nothing (the call fails with the reason)
    expect(await registry.get("getThing")?.describeCall?.({})).toBeUndefined();
    expect(
      JSON.stringify(await registry.get("q__getThing")?.describeCall?.({ id: "1" })),
    ).not.toContain(API_KEY);
  });
});
