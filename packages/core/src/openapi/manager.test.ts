import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingLogger } from "../testing/mcp-servers.js";
import {
  type PetstoreServer,
  petstoreSpecPath,
  startPetstoreServer,
} from "../testing/petstore-server.js";
import { ToolRegistry } from "../tools/registry.js";
import { type AnyAgentTool, ToolError, type ToolResult } from "../tools/tool.js";
import { openApiConfigPath } from "./config.js";
import { OpenApiManager } from "./manager.js";
import { openApiTools } from "./spec-tools.js";

const API_KEY = "petstore-key-5f1d2a9c";

let petstore: PetstoreServer;
let specServer: { url: string; close(): Promise<void> };

beforeAll(async () => {
  petstore = await startPetstoreServer({
    auth: { header: "api_key", value: API_KEY },
    bigPetBytes: 100_000,
  });
  // the same spec, served over HTTP (REQ-157 from_url)
  const yaml = readFileSync(petstoreSpecPath(), "utf8");
  const server = createServer((req, res) => {
    if (req.url === "/petstore.yaml") {
      res.writeHead(200, { "content-type": "application/yaml" });
      res.end(yaml);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  specServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
afterAll(async () => {
  await petstore.close();
  await specServer.close();
});

function workspace(entries: unknown, files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "arbor-openapi-"));
  mkdirSync(join(root, ".arbor"));
  mkdirSync(join(root, "apis"));
  writeFileSync(join(root, "apis", "petstore.yaml"), readFileSync(petstoreSpecPath()));
  writeFileSync(openApiConfigPath(root), JSON.stringify(entries));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  return root;
}

// the Petstore runs on 127.0.0.1 (loopback is refused without ARBOR_OPENAPI_ALLOW_LOOPBACK=1),
// its key's variable is allowed by ARBOR_OPENAPI_ENV, and the URL specs may be fetched
const POLICY = { ARBOR_OPENAPI_ENV: "PETSTORE_KEY", ARBOR_OPENAPI_ALLOW_LOOPBACK: "1" };

async function started(
  entries: unknown,
  env: Record<string, string> = { PETSTORE_KEY: API_KEY },
  extra: { maxResponseBytes?: number } = {},
  files: Record<string, string> = {},
) {
  const root = workspace(entries, files);
  const logger = recordingLogger();
  const manager = new OpenApiManager({
    configPath: openApiConfigPath(root),
    workspaceRoot: root,
    env: { ...POLICY, ...env },
    logger,
    allowRemote: () => true,
    ...extra,
  });
  await manager.start();
  await manager.settled();
  return { manager, logger, root };
}

const ctx = (name: string) => ({
  toolCallId: "call_1",
  toolName: name,
  signal: new AbortController().signal,
  onUpdate: () => undefined,
  onProgress: () => undefined,
});

async function call(
  tool: AnyAgentTool | undefined,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  if (tool === undefined) throw new Error("no such tool");
  return tool.execute(args, ctx(tool.name));
}

async function failure(
  tool: AnyAgentTool | undefined,
  args: Record<string, unknown>,
): Promise<ToolError> {
  try {
    await call(tool, args);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("the call succeeded");
}

const text = (result: ToolResult) =>
  result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

const petstoreEntry = () => ({
  spec: "apis/petstore.yaml",
  base_url: petstore.baseUrl,
  auth: { type: "api_key", env: "PETSTORE_KEY" },
});

describe("OpenApiManager over the Petstore", () => {
  it("loads a YAML file spec relative to the workspace: one tool per operation in the registry", async () => {
    const { manager } = await started([petstoreEntry()]);
    const registry = new ToolRegistry([], [manager]);
    expect(registry.list()).toHaveLength(20);
    expect(registry.origin("getPetById")).toEqual({
      kind: "openapi",
      spec: "apis/petstore.yaml",
      operation: "getPetById",
    });
    expect(registry.get("getPetById")?.category).toBe("read");
    expect(registry.get("addPet")?.category).toBe("network");
    const [info] = manager.specs();
    expect(info).toMatchObject({
      index: 0,
      status: "loaded",
      title: "Swagger Petstore",
      base_url: petstore.baseUrl,
      auth: { type: "api_key", env: "PETSTORE_KEY", set: true },
    });
    expect(JSON.stringify(manager.specs())).not.toContain(API_KEY);
    expect(manager.credentialVariables()).toEqual(["PETSTORE_KEY"]);
  });

  it("calls the API: path parameter, the key from the environment in the spec's api_key header", async () => {
    const { manager } = await started([petstoreEntry()]);
    const registry = new ToolRegistry([], [manager]);
    const before = petstore.requests.length;
    const result = await call(registry.get("getPetById"), { petId: 1 });
    expect(text(result)).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/v2\/pet\/1 → 200\n\n\{"id":1,"name":"doggie"/,
    );
    const sent = petstore.requests[before];
    expect(sent?.url).toBe("/v2/pet/1");
    expect(sent?.headers.api_key).toBe(API_KEY);
    expect(result.details).toMatchObject({ method: "GET", status: 200, truncated: false });
  });

  it("sends a JSON body and query arrays; the created pet can be read back", async () => {
    const { manager } = await started([petstoreEntry()]);
    const registry = new ToolRegistry([], [manager]);
    const created = await call(registry.get("addPet"), {
      body: { name: "rex", photoUrls: [], status: "available", tags: [{ id: 7, name: "fluffy" }] },
    });
    expect(text(created)).toContain("POST ");
    const id = JSON.parse(text(created).split("\n\n")[1] ?? "{}").id as number;
    expect(petstore.requests.at(-1)?.headers["content-type"]).toBe("application/json");
    const found = await call(registry.get("findPetsByStatus"), { status: ["available", "sold"] });
    expect(petstore.requests.at(-1)?.url).toBe("/v2/pet/findByStatus?status=available&status=sold");
    expect(text(found)).toContain('"name":"rex"');
    expect(text(found)).toContain('"name":"bigdog"');
    const read = await call(registry.get("getPetById"), { petId: id });
    expect(text(read)).toContain('"name":"rex"');
  });

  it("a non-2xx answer is a failed tool result with the status and the body", async () => {
    const { manager } = await started([petstoreEntry()]);
    const registry = new ToolRegistry([], [manager]);
    const missing = await failure(registry.get("getPetById"), { petId: 999 });
    expect(missing.kind).toBe("failed");
    expect(missing.message).toMatch(/→ 404\n\n.*Pet not found/);
    const invalid = await failure(registry.get("getPetById"), {});
    expect(invalid.kind).toBe("invalidArgs");
    expect(invalid.message).toContain("petId");
  });

  it("without the credential set: the call fails naming the variable, nothing is sent", async () => {
    const { manager } = await started([petstoreEntry()], {});
    expect(manager.specs()[0]?.auth?.set).toBe(false);
    const before = petstore.requests.length;
    const error = await failure(new ToolRegistry([], [manager]).get("getInventory"), {});
    expect(error.message).toContain("PETSTORE_KEY is not set");
    expect(petstore.requests.length).toBe(before);
  });

  it("a wrong key gets the server's 401 as an error, and the key never appears in what the model reads", async () => {
    const leaky = "leaky-key-0123456789";
    const { manager } = await started(
      [
        {
          ...petstoreEntry(),
          auth: { type: "api_key", env: "PETSTORE_KEY", in: "query", name: "api_key" },
        },
      ],
      { PETSTORE_KEY: leaky },
    );
    const error = await failure(new ToolRegistry([], [manager]).get("getInventory"), {});
    expect(error.message).toContain("→ 401");
    expect(error.message).toContain("api_key=[redacted]");
    expect(error.message).not.toContain(leaky);
    // the key went in the query, as configured
    expect(petstore.requests.at(-1)?.url).toBe(`/v2/store/inventory?api_key=${leaky}`);
  });

  it("truncates a long body at the bound, on a UTF-8 boundary", async () => {
    const { manager } = await started(
      [petstoreEntry()],
      { PETSTORE_KEY: API_KEY },
      {
        maxResponseBytes: 1001,
      },
    );
    const result = await call(new ToolRegistry([], [manager]).get("getPetById"), { petId: 3 });
    const body = text(result).split("\n\n")[1] ?? "";
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1001);
    expect(body).not.toContain("\uFFFD");
    expect(text(result)).toContain("[truncated: the first 1001 bytes");
    expect(result.details).toMatchObject({ truncated: true });
  });

  it("a JSON spec gives the same tools as the YAML one", async () => {
    const document = await SwaggerParser.parse(petstoreSpecPath());
    const { manager: fromYaml } = await started([petstoreEntry()]);
    const { manager: fromJson } = await started(
      [{ ...petstoreEntry(), spec: "apis/petstore.json" }],
      { PETSTORE_KEY: API_KEY },
      {},
      { "apis/petstore.json": JSON.stringify(document, null, 2) },
    );
    const tools = (m: OpenApiManager) =>
      m.tools().map((t) => [t.name, JSON.stringify(t.inputSchema), t.description]);
    expect(fromJson.specs()[0]?.status).toBe("loaded");
    expect(tools(fromJson)).toEqual(tools(fromYaml));
  });

  it("reads the same spec from a URL, with a filter and a name prefix", async () => {
    const { manager } = await started([
      {
        spec: `${specServer.url}/petstore.yaml`,
        base_url: petstore.baseUrl,
        auth: { type: "api_key", env: "PETSTORE_KEY" },
        filter: { tags: ["store"] },
        name_prefix: "shop",
      },
    ]);
    const names = new ToolRegistry([], [manager]).list().map((t) => t.name);
    expect(names).toEqual([
      "shop__getInventory",
      "shop__placeOrder",
      "shop__getOrderById",
      "shop__deleteOrder",
    ]);
    const result = await call(new ToolRegistry([], [manager]).get("shop__getInventory"), {});
    expect(text(result)).toContain('"available"');
  });

  it("a spec that cannot be read or is invalid is failed with the reason; the others still load", async () => {
    const { manager } = await started([
      { spec: "apis/missing.yaml" },
      petstoreEntry(),
      { spec: "apis/petstore.yaml", auth: { type: "nope", env: "X" } },
    ]);
    const specs = manager.specs();
    expect(specs.map((s) => s.status)).toEqual(["failed", "loaded", "failed"]);
    expect(specs[0]?.error).toMatch(/ENOENT|no such file|Error opening file/i);
    expect(specs[2]?.error).toBe('[2].auth.type: expected "bearer", "api_key" or "basic"');
    const invalid = await started([{ spec: `${specServer.url}/nothing.yaml` }]);
    expect(invalid.manager.specs()[0]?.status).toBe("failed");
  });
});

describe("openApiTools (REQ-157/158: for an Agent, from a file, a URL or the text)", () => {
  it("gives the same tools from each source, and they call the API", async () => {
    const yaml = readFileSync(petstoreSpecPath(), "utf8");
    const json = JSON.stringify(await SwaggerParser.parse(petstoreSpecPath()));
    const options = {
      baseUrl: petstore.baseUrl,
      auth: { type: "api_key" as const, env: "PETSTORE_KEY" },
      env: { PETSTORE_KEY: API_KEY },
      filter: { tags: ["pet"] },
      allowLoopback: true,
    };
    const fromFile = await openApiTools({ file: petstoreSpecPath() }, options);
    const fromUrl = await openApiTools({ url: `${specServer.url}/petstore.yaml` }, options);
    const fromYaml = await openApiTools({ text: yaml }, options);
    const fromJson = await openApiTools({ text: json }, options);
    const shape = (r: { tools: AnyAgentTool[] }) =>
      r.tools.map((t) => [t.name, JSON.stringify(t.inputSchema)]);
    expect(shape(fromFile)).toHaveLength(8);
    expect(shape(fromUrl)).toEqual(shape(fromFile));
    expect(shape(fromYaml)).toEqual(shape(fromFile));
    expect(shape(fromJson)).toEqual(shape(fromFile));
    const getPet = fromYaml.tools.find((t) => t.name === "getPetById");
    expect(text(await call(getPet, { petId: 1 }))).toContain('"name":"doggie"');
    await expect(openApiTools({ text: "openapi: 3.0.0\ninfo: {}\n" })).rejects.toThrow();
    await expect(
      openApiTools({ text: '{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{}}' }),
    ).rejects.toThrow(/OpenAPI 3/);
  });
});
