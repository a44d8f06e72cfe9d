import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, toolDefinition } from "./tool.js";

const params = z.object({ path: z.string() });
const make = (name: string, description: string, parameters: z.ZodType = params) =>
  defineTool({
    name,
    label: name,
    description,
    parameters,
    category: "read",
    execute: async () => ({ content: [{ type: "text", text: "done" }] }),
  });

describe("toolDefinition", () => {
  it("is made once per tool", () => {
    const tool = make("read", "Reads a file.");
    expect(toolDefinition(tool)).toBe(toolDefinition(tool));
    expect(toolDefinition(tool)).toEqual({
      name: "read",
      description: "Reads a file.",
      parameters: expect.objectContaining({ type: "object" }),
    });
  });

  it("is shared by tools made again with the same name, description and schema", () => {
    // a fold's branch and return tools are made per fold: their definition (and its cached
    // token count) is the first one's
    expect(toolDefinition(make("branch", "Start a fold."))).toBe(
      toolDefinition(make("branch", "Start a fold.")),
    );
  });

  it("is a new one when the name, the description or the schema differs", () => {
    const first = toolDefinition(make("branch", "Start a fold."));
    const renamed = toolDefinition(make("fold", "Start a fold."));
    const described = toolDefinition(make("branch", "Start a fold, now."));
    const other = toolDefinition(make("branch", "Start a fold.", z.object({ path: z.number() })));
    for (const def of [renamed, described, other]) expect(def).not.toBe(first);
    expect(renamed.name).toBe("fold");
    expect(described.description).toBe("Start a fold, now.");
    expect(other.parameters).toMatchObject({ properties: { path: { type: "number" } } });
    expect(first).toMatchObject({ name: "branch", description: "Start a fold." });
  });

  it("keeps each tool's own copy of an input schema (MCP tools)", () => {
    const schema = { type: "object", properties: { q: { type: "string" } } };
    const tool = { ...make("search", "Searches."), inputSchema: schema };
    const twin = { ...make("search", "Searches."), inputSchema: schema };
    expect(toolDefinition(tool).parameters).toEqual(schema);
    expect(toolDefinition(tool).parameters).not.toBe(schema);
    expect(toolDefinition(twin)).not.toBe(toolDefinition(tool));
  });

  it("keeps a bounded number of shared definitions per schema", () => {
    const schema = z.object({ n: z.number() });
    const first = toolDefinition(make("t", "description 0", schema));
    for (let i = 1; i <= 100; i++) toolDefinition(make("t", `description ${i}`, schema));
    // the first was let go: an equal tool made now gets an equal, new definition
    const again = toolDefinition(make("t", "description 0", schema));
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});
