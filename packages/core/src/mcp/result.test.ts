import { describe, expect, it } from "vitest";
import { ToolError } from "../tools/tool.js";
import { toolResultFromMcp } from "./result.js";

const origin = { server: "s", tool: "t" };

describe("toolResultFromMcp", () => {
  it("keeps text and images, names resources and links, adds structuredContent as JSON", () => {
    const result = toolResultFromMcp(
      {
        content: [
          { type: "text", text: "hello" },
          { type: "image", data: "iVBORw0=", mimeType: "image/png" },
          { type: "resource", resource: { uri: "demo://a", mimeType: "text/plain", text: "A" } },
          { type: "resource", resource: { uri: "demo://b", mimeType: "image/gif", blob: "R0lG" } },
          { type: "resource", resource: { uri: "demo://c", blob: "AAAA" } },
          { type: "resource_link", uri: "demo://d", name: "d", mimeType: "text/markdown" },
        ],
        structuredContent: { sum: 5 },
      },
      origin,
    );
    expect(result.content).toEqual([
      { type: "text", text: "hello" },
      { type: "image", data: "iVBORw0=", mimeType: "image/png" },
      { type: "text", text: "[resource demo://a (text/plain)]\nA" },
      { type: "image", data: "R0lG", mimeType: "image/gif" },
      { type: "text", text: "[resource demo://c: unknown type, 3 bytes]" },
      { type: "text", text: "[resource link d <demo://d> (text/markdown)]" },
      { type: "text", text: '{"sum":5}' },
    ]);
    expect(result.details).toEqual({ server: "s", tool: "t", structuredContent: { sum: 5 } });
  });

  it("does not repeat structuredContent the text already carries", () => {
    const result = toolResultFromMcp(
      { content: [{ type: "text", text: '{"sum":5}' }], structuredContent: { sum: 5 } },
      origin,
    );
    expect(result.content).toHaveLength(1);
  });

  it("turns isError into a failed ToolError with the server's text", () => {
    let thrown: unknown;
    try {
      toolResultFromMcp(
        { content: [{ type: "text", text: "no such file" }], isError: true },
        origin,
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolError);
    expect((thrown as ToolError).kind).toBe("failed");
    expect((thrown as ToolError).message).toBe("no such file");
  });
});
