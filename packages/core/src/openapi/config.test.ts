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

  it("auth.env: only variables ARBOR_OPENAPI_ENV lists, and never Arbor's or a provider's, even listed", () => {
    const policy = openApiPolicyFromEnv({
      ARBOR_OPENAPI_ENV:
        "GITHUB_TOKEN, ANTHROPIC_API_KEY,ARBOR_TOKEN,ARBOR_ADMIN_TOKEN,DATABASE_URL,OPENAI_API_KEY,AWS_SECRET_ACCESS_KEY,ANTHROPIC_AUTH_TOKEN,OTEL_EXPORTER_OTLP_HEADERS",
    });
    const entry = (env: string) => ({ spec: "a.yaml", auth: { type: "bearer", env } });
    const { entries, problems } = parseOpenApiConfig(
      JSON.stringify([
        entry("GITHUB_TOKEN"),
        entry("ANTHROPIC_API_KEY"),
        entry("ARBOR_TOKEN"),
        entry("ARBOR_ADMIN_TOKEN"),
        entry("DATABASE_URL"),
        entry("OPENAI_API_KEY"),
        entry("AWS_SECRET_ACCESS_KEY"),
        entry("ANTHROPIC_AUTH_TOKEN"),
        entry("OTEL_EXPORTER_OTLP_HEADERS"),
        entry("STRIPE_KEY"),
      ]),
      ROOT,
      policy,
    );
    expect(entries.map((e) => e.auth?.env)).toEqual(["GITHUB_TOKEN"]);
    expect(problems.map((p) => p.field)).toEqual([
      "[1].auth.env",
      "[2].auth.env",
      "[3].auth.env",
      "[4].auth.env",
      "[5].auth.env",
      "[6].auth.env",
      "[7].auth.env",
      "[8].auth.env",
      "[9].auth.env",
    ]);
    expect(problems[0]?.message).toContain("never sent to an API");
    // not listed: the message says where to list it
    expect(problems.at(-1)?.message).toMatch(
      /STRIPE_KEY is not allowed: add it to ARBOR_OPENAPI_ENV/,
    );
    // without ARBOR_OPENAPI_ENV nothing may be named
    const none = parseOpenApiConfig(JSON.stringify([entry("GITHUB_TOKEN")]), ROOT);
    expect(none.problems[0]).toMatchObject({
      field: "[0].auth.env",
      message: expect.stringContaining("ARBOR_OPENAPI_ENV"),
    });
  });

  it("a spec file outside the workspace is refused: absolute paths elsewhere and .. escapes", () => {
    const { entries, problems } = parseOpenApiConfig(
      JSON.stringify([
        { spec: "/proc/self/environ" },
        { spec: "../other/spec.yaml" },
        { spec: "apis/../../work/space-2/spec.yaml" },
        { spec: "apis/../spec.yaml" },
        { spec: "..spec.yaml" },
      ]),
      ROOT,
    );
    expect(problems.map((p) => [p.field, p.message])).toEqual([
      ["[0].spec", "a spec file must be inside the workspace: /proc/self/environ is not"],
      ["[1].spec", "a spec file must be inside the workspace: ../other/spec.yaml is not"],
      ["[2].spec", expect.stringContaining("must be inside the workspace")],
    ]);
    expect(entries.map((e) => e.source)).toEqual([
      { kind: "file", path: "/work/space/spec.yaml" },
      { kind: "file", path: "/work/space/..spec.yaml" },
    ]);
  });

  it("base_url and spec URLs: link-local and metadata hosts refused; loopback only when allowed", () => {
    const text = JSON.stringify([
      { spec: "a.yaml", base_url: "http://169.254.169.254/latest" },
      { spec: "a.yaml", base_url: "http://[fd00:ec2::254]/" },
      { spec: "a.yaml", base_url: "http://metadata.google.internal/computeMetadata/v1" },
      { spec: "a.yaml", base_url: "http://[fe80::1]:8080/" },
      { spec: "http://169.254.169.254/openapi.json" },
      { spec: "a.yaml", base_url: "http://127.0.0.1:9/v2" },
      { spec: "http://localhost:9/openapi.json" },
      { spec: "a.yaml", base_url: "https://api.example.com/v2" },
    ]);
    const strict = parseOpenApiConfig(text, ROOT);
    expect(strict.problems.map((p) => p.field)).toEqual([
      "[0].base_url",
      "[1].base_url",
      "[2].base_url",
      "[3].base_url",
      "[4].spec",
      "[5].base_url",
      "[6].spec",
    ]);
    expect(strict.problems[0]?.message).toBe(
      "refused: 169.254.169.254 is a cloud metadata address",
    );
    expect(strict.problems[5]?.message).toContain("ARBOR_OPENAPI_ALLOW_LOOPBACK=1");
    const loopback = parseOpenApiConfig(text, ROOT, POLICY);
    expect(loopback.problems.map((p) => p.field)).toEqual([
      "[0].base_url",
      "[1].base_url",
      "[2].base_url",
      "[3].base_url",
      "[4].spec",
    ]);
  });
});
