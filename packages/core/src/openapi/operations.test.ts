import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { petstoreSpecPath } from "../testing/petstore-server.js";
import { toJsonSchema } from "./json-schema.js";
import { matchesFilter, operationsOf, serverUrl, toolNameFor } from "./operations.js";

async function petstore(): Promise<unknown> {
  return SwaggerParser.validate(petstoreSpecPath());
}

describe("operationsOf (the Petstore)", () => {
  it("one tool per operation, named by operationId, with the servers URL", async () => {
    const { operations, warnings } = operationsOf(await petstore());
    // uploadFile's body is application/octet-stream only (optional: the tool stays, body not sent)
    expect(operations).toHaveLength(20);
    expect(operations.map((o) => o.toolName)).toContain("getPetById");
    expect(new Set(operations.map((o) => o.baseUrl))).toEqual(
      new Set(["http://petstore.swagger.io/v2"]),
    );
    expect(warnings.some((w) => w.includes("uploadImage"))).toBe(true);
  });

  it("path, query and header parameters and a $ref'd JSON body become one JSON Schema", async () => {
    const { operations } = operationsOf(await petstore());
    const byName = new Map(operations.map((o) => [o.toolName, o]));
    const getPet = byName.get("getPetById");
    expect(getPet?.inputSchema).toEqual({
      type: "object",
      properties: {
        petId: { type: "integer", format: "int64", description: "ID of pet to return" },
      },
      required: ["petId"],
    });
    const deletePet = byName.get("deletePet");
    expect(deletePet?.parameters.map((p) => [p.key, p.in, p.required])).toEqual([
      ["api_key", "header", false],
      ["petId", "path", true],
    ]);
    const addPet = byName.get("addPet");
    expect(addPet?.method).toBe("POST");
    expect(addPet?.body).toEqual({ key: "body", required: true });
    const properties = addPet?.inputSchema.properties as Record<string, Record<string, unknown>>;
    const body = properties.body ?? {};
    // the $ref to #/components/requestBodies/Pet and its schema were resolved; OpenAPI-only
    // keywords (xml, example) dropped
    expect(body.required).toEqual(["name", "photoUrls"]);
    expect(JSON.stringify(body)).not.toContain('"xml"');
    expect(JSON.stringify(body)).not.toContain("$ref");
    expect((body.properties as Record<string, unknown>).category).toEqual({
      type: "object",
      properties: { id: { type: "integer", format: "int64" }, name: { type: "string" } },
    });
    expect(addPet?.inputSchema.required).toEqual(["body"]);
    const findByStatus = byName.get("findPetsByStatus");
    expect(findByStatus?.inputSchema.properties).toMatchObject({
      status: { type: "array", items: { type: "string", enum: ["available", "pending", "sold"] } },
    });
  });

  it("filters by operation id, tag or path prefix (any match); name_prefix names the tools", async () => {
    const document = await petstore();
    const names = (filter: Parameters<typeof operationsOf>[1]) =>
      operationsOf(document, filter).operations.map((o) => o.toolName);
    expect(names({ filter: { operationIds: ["getPetById", "getInventory"] } })).toEqual([
      "getPetById",
      "getInventory",
    ]);
    expect(names({ filter: { tags: ["store"] } })).toEqual([
      "getInventory",
      "placeOrder",
      "getOrderById",
      "deleteOrder",
    ]);
    expect(names({ filter: { pathPrefixes: ["/user/log"] } })).toEqual(["loginUser", "logoutUser"]);
    expect(
      names({ filter: { tags: ["store"], operationIds: ["loginUser"] }, namePrefix: "ps" }),
    ).toEqual([
      "ps__getInventory",
      "ps__placeOrder",
      "ps__getOrderById",
      "ps__deleteOrder",
      "ps__loginUser",
    ]);
    expect(
      operationsOf(document, { baseUrl: "http://127.0.0.1:1/v2" }).operations[0]?.baseUrl,
    ).toBe("http://127.0.0.1:1/v2");
  });
});

describe("operationsOf (edge cases)", () => {
  const doc = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths,
    ...extra,
  });

  it("skips an operation without operationId with a warning, whatever the filter", () => {
    const { operations, warnings } = operationsOf(
      doc({
        "/a": { get: { responses: {} } },
        "/b": { get: { operationId: "getB", responses: {} } },
      }),
    );
    expect(operations.map((o) => o.toolName)).toEqual(["getB"]);
    expect(warnings).toEqual(["GET /a has no operationId: skipped"]);
  });

  it("cookies are left out; a parameter named body moves the body to _request_body; path-level parameters merge", () => {
    const { operations } = operationsOf(
      doc({
        "/items/{id}": {
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          post: {
            operationId: "post item",
            parameters: [
              { name: "session", in: "cookie", schema: { type: "string" } },
              { name: "body", in: "query", schema: { type: "string" } },
              { name: "id", in: "header", schema: { type: "string" } },
            ],
            requestBody: {
              content: { "application/vnd.api+json": { schema: { type: "object" } } },
            },
            responses: {},
          },
        },
      }),
    );
    const op = operations[0];
    expect(op?.toolName).toBe("post_item");
    expect(op?.parameters.map((p) => [p.key, p.name, p.in])).toEqual([
      ["id", "id", "path"],
      ["body", "body", "query"],
      ["header_id", "id", "header"],
    ]);
    expect(op?.body).toEqual({ key: "_request_body", required: false });
    expect(Object.keys(op?.inputSchema.properties as object)).toEqual([
      "id",
      "body",
      "header_id",
      "_request_body",
    ]);
  });

  it("a required body that is not JSON skips the operation", () => {
    const { operations, warnings } = operationsOf(
      doc({
        "/upload": {
          post: {
            operationId: "upload",
            requestBody: { required: true, content: { "multipart/form-data": { schema: {} } } },
            responses: {},
          },
        },
      }),
    );
    expect(operations).toEqual([]);
    expect(warnings[0]).toContain("multipart/form-data");
  });

  it("a relative servers URL resolves against a URL spec; a file spec's stays unknown", () => {
    expect(serverUrl([{ url: "/v3" }], "https://h.example/openapi.json")).toBe(
      "https://h.example/v3",
    );
    expect(serverUrl([{ url: "/v3" }], undefined)).toBeUndefined();
    expect(
      serverUrl(
        [
          {
            url: "https://{region}.example.com/{v}",
            variables: { region: { default: "eu" }, v: { default: "v1" } },
          },
        ],
        undefined,
      ),
    ).toBe("https://eu.example.com/v1");
  });

  it("tool names keep to what providers accept", () => {
    expect(toolNameFor("get.user/{id}", undefined)).toBe("get_user__id_");
    expect(toolNameFor("x".repeat(80), "p")).toHaveLength(64);
    expect(matchesFilter({}, { operationId: "a", tags: [], path: "/" })).toBe(true);
  });
});

describe("toJsonSchema", () => {
  it("turns nullable and boolean exclusive bounds into JSON Schema, and cuts cycles", () => {
    const node: Record<string, unknown> = { type: "object", properties: {} };
    (node.properties as Record<string, unknown>).child = node;
    expect(
      toJsonSchema({
        type: "object",
        properties: {
          n: {
            type: "integer",
            minimum: 0,
            exclusiveMinimum: true,
            nullable: true,
            "x-internal": 1,
          },
          tree: node,
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        n: { type: ["integer", "null"], exclusiveMinimum: 0 },
        tree: {
          type: "object",
          properties: { child: { description: "(recursive: the same shape as its parent)" } },
        },
      },
    });
  });
});
