import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { harness, silent } from "../../../test/support/session-harness.js";
import { McpManager } from "../../mcp/manager.js";

// Why a payload would be refused before anything is stored (Session.payloadProblem): the MCP
// checks the messages route used to make itself, now behind the session's API (issue #29 item 2).

describe("Session.payloadProblem", () => {
  it("names no problem for a plain text", async () => {
    const session = await harness([]).manager.create();
    expect(session.payloadProblem({ type: "text", text: "hi" })).toBeUndefined();
  });

  it("refuses MCP payloads on a server with no MCP servers", async () => {
    const session = await harness([]).manager.create();
    const payload = { type: "mcp_resource", server_name: "docs", resource_uri: "x://y" } as const;
    expect(session.payloadProblem(payload)).toEqual({
      field: "server_name",
      message: "this server has no MCP servers configured",
    });
  });

  it("asks the session's MCP servers which server, resource or prompt is missing", async () => {
    const mcp = new McpManager({ sources: [], env: {}, workspaceRoot: tmpdir(), logger: silent });
    const session = await harness([], { mcp }).manager.create();
    expect(
      session.payloadProblem({ type: "mcp_resource", server_name: "docs", resource_uri: "x://y" }),
    ).toEqual({ field: "server_name", message: "no MCP server is named docs" });
    expect(
      session.payloadProblem({ type: "mcp_prompt", server_name: "docs", prompt_name: "review" }),
    ).toEqual({ field: "server_name", message: "no connected MCP server is named docs" });
  });
});
