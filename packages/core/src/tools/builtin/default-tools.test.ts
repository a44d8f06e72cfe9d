import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../../test/support/tool-test-context.js";
import { toolDefinition } from "../tool.js";
import { createDefaultTools } from "./default-tools.js";

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-default-")));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("createDefaultTools", () => {
  it("REQ-053 returns exactly the six built-in tools with distinct names and categories", () => {
    const tools = createDefaultTools({ workspaceRoot: root });
    expect(tools.map((t) => [t.name, t.category])).toEqual([
      ["bash", "execute"],
      ["read_file", "read"],
      ["write_file", "write"],
      ["edit_file", "write"],
      ["list_files", "read"],
      ["search", "read"],
    ]);
    for (const tool of tools) {
      expect(tool.label).not.toBe("");
      expect(tool.description.length).toBeGreaterThan(80);
    }
  });

  it("REQ-021 every parameter the model sees is described in the JSON Schema", () => {
    for (const tool of createDefaultTools({ workspaceRoot: root })) {
      const schema = toolDefinition(tool).parameters as {
        type: string;
        properties: Record<string, { description?: string }>;
      };
      expect(schema.type, tool.name).toBe("object");
      for (const [name, property] of Object.entries(schema.properties)) {
        expect(property.description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
  });

  it("passes per-tool options through and shares the workspace root", async () => {
    const tools = createDefaultTools({
      workspaceRoot: root,
      bash: { denyPatterns: ["forbidden"] },
    });
    const byName = new Map(tools.map((t) => [t.name, t]));
    const ctx = createRecordingContext();
    await expect(byName.get("bash")!.execute({ command: "echo forbidden" }, ctx)).rejects.toThrow(
      "Command blocked: matches deny pattern 'forbidden'",
    );
    await byName.get("write_file")!.execute({ path: "x/y.txt", content: "hi there\n" }, ctx);
    await byName
      .get("edit_file")!
      .execute({ path: "x/y.txt", old_text: "hi", new_text: "hello" }, ctx);
    const read = await byName.get("read_file")!.execute({ path: "x/y.txt" }, ctx);
    expect(read.content).toEqual([
      { type: "text", text: "File: x/y.txt (1 line)\n1\thello there" },
    ]);
    const listed = await byName.get("list_files")!.execute({}, ctx);
    expect(listed.content).toEqual([{ type: "text", text: "x/\nx/y.txt" }]);
    const found = await byName.get("search")!.execute({ pattern: "hello" }, ctx);
    expect(found.content).toEqual([{ type: "text", text: "x/y.txt:1: hello there" }]);
  });
});
