import { describe, expect, it } from "vitest";
import { openApiPolicyFromEnv, parseOpenApiConfig } from "./config.js";

const ROOT = "/work/space";
const POLICY = openApiPolicyFromEnv({
  ARBOR_OPENAPI_ENV: "PETSTORE_KEY,EX_TOKEN,T,X",
  ARBOR_OPENAPI_ALLOW_LOOPBACK: "1",
});

describe("parseOpenApiConfig", () => {
  it("reads every field; a relative spec path is relative to the workspace", () => {
    const { entries, problems } = parseOpenApiConfig(
      JSON.stringify([
        {
          spec: "apis/petstore.yaml",
          base_url: "http://127.0.0.1:9/v2",
          auth: { type: "api_key", env: "PETSTORE_KEY", in: "header", name: "api_key" },
          filter: { tags: ["pet"], operation_ids: ["getInventory"], path_prefixes: ["/store"] },
          name_prefix: "pets",
        },
        { spec: "https://api.example.com/openapi.json", auth: { type: "bearer", env: "EX_TOKEN" } },
        { spec: "/work/space/abs/spec.json" },
      ]),
      ROOT,
      POLICY,
    );
    expect(problems).toEqual([]);
    expect(entries[0]).toEqual({
      index: 0,
      spec: "apis/petstore.yaml",
      source: { kind: "file", path: "/work/space/apis/petstore.yaml" },
      baseUrl: "http://127.0.0.1:9/v2",
      auth: { type: "api_key", env: "PETSTORE_KEY", in: "header", name: "api_key" },
      filter: { tags: ["pet"], operationIds: ["getInventory"], pathPrefixes: ["/store"] },
      namePrefix: "pets",
    });
    expect(entries[1]?.source).toEqual({
      kind: "url",
      url: "https://api.example.com/openapi.json",
    });
    expect(entries[1]?.auth).toEqual({ type: "bearer", env: "EX_TOKEN" });
    expect(entries[2]?.source).toEqual({ kind: "file", path: "/work/space/abs/spec.json" });
  });

  it("names the wrong field of an invalid entry and keeps the others", () => {
    const { entries, problems } = parseOpenApiConfig(
      JSON.stringify([
        { spec: "ok.yaml" },
        { spec: "a.yaml", auth: { type: "oauth", env: "X" } },
        { spec: "b.yaml", auth: { type: "bearer", env: "sk-ant-123 literal" } },
        { spec: "c.yaml", auth: { type: "bearer", env: "T", name: "x" } },
        { spec: "d.yaml", filter: { methods: ["GET"] } },
        { spec: "e.yaml", name_prefix: "has space" },
        { spec: "ftp://host/spec.json" },
        { spec: "f.yaml", base_url: "https://user:pw@host/api" },
        { spec: "" },
        { spec: "g.yaml", token: "abc" },
        "h.yaml",
      ]),
      ROOT,
      POLICY,
    );
    expect(entries.map((e) => e.spec)).toEqual(["ok.yaml"]);
    expect(problems.map((p) => p.field)).toEqual([
      "[1].auth.type",
      "[2].auth.env",
      "[3].auth.name",
      "[4].filter.methods",
      "[5].name_prefix",
      "[6].spec",
      "[7].base_url",
      "[8].spec",
      "[9].token",
      "[10]",
    ]);
    expect(problems.every((p) => p.index !== undefined)).toBe(true);
  });

  it("a file that is not a JSON array is one problem of the file", () => {
    expect(parseOpenApiConfig("{", ROOT).problems).toEqual([
      { field: "(file)", message: expect.stringContaining("not valid JSON") },
    ]);
    expect(parseOpenApiConfig('{"spec":"a.yaml"}', ROOT).problems).toEqual([
      { field: "(file)", message: "expected an array of specs" },
    ]);
  });
});
