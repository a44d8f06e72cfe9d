import { describe, expect, it } from "vitest";
import { MODEL_TOOL_NAME, modelToolNames } from "./tool-names.js";

describe("modelToolNames", () => {
  it("names tools mcp__<server>__<tool>", () => {
    const names = modelToolNames([{ server: "fs", tool: "read_file" }]);
    expect(names.get("fs\0read_file")).toBe("mcp__fs__read_file");
  });

  it("replaces invalid characters, shortens long names and de-duplicates, deterministically", () => {
    const keys = [
      { server: "a.b", tool: "get sum" },
      { server: "a_b", tool: "get_sum" },
      { server: "s", tool: "x".repeat(80) },
      { server: "s", tool: `${"x".repeat(80)}y` },
      { server: "my server", tool: "échó" },
    ];
    const names = modelToolNames(keys);
    const values = [...names.values()];
    expect(new Set(values).size).toBe(keys.length);
    for (const name of values) expect(name).toMatch(MODEL_TOOL_NAME);
    expect(names.get("my server\0échó")).toBe("mcp__my_server___ch_");
    // the same names whatever the order
    const reversed = modelToolNames([...keys].reverse());
    for (const [key, name] of names) expect(reversed.get(key)).toBe(name);
  });
});
