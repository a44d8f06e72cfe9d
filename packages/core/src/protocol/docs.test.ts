import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderProtocolDocs } from "./docs.js";
import { MessagePayloadSchema } from "./requests.js";

const DOCS_PATH = fileURLToPath(new URL("../../../../docs/protocol.md", import.meta.url));

describe("protocol docs", () => {
  it("docs/protocol.md is up to date with the zod schemas", () => {
    const expected = renderProtocolDocs();
    const actual = readFileSync(DOCS_PATH, "utf8");
    if (actual !== expected) {
      throw new Error(
        "docs/protocol.md is out of date. Regenerate it from packages/core with:\n" +
          "  node --conditions=@arbor/source --import tsx src/protocol/write-docs.ts",
      );
    }
  });

  it("Extensible payloads: documentation enumerates every payload type with its required fields", () => {
    const docs = renderProtocolDocs();
    for (const option of MessagePayloadSchema.options) {
      const type = option.shape.type.value;
      expect(docs).toContain(`#### payload \`type: "${type}"\``);
    }
    expect(docs).toMatch(/\| `path` \| string \(non-empty, length ≤ 4096\) \| yes \|/);
    expect(docs).toMatch(/\| `range` \| object \| no \|/);
    expect(docs).toMatch(/\| `parameters` \| record<string, any> \| no \|/);
    expect(docs).toContain(
      "Supported payload types: `text`, `file_reference`, `mcp_resource`, `mcp_prompt`, `attachment`, `workflow`.",
    );
    expect(docs).not.toContain('payload `type: "tool_result"`');
  });

  it("documents every request/response body and every SSE event", () => {
    const docs = renderProtocolDocs();
    for (const title of [
      "SendMessageRequest",
      "CreateSessionRequest",
      "PatchConfigRequest",
      "ApprovalsRequest",
      "CreateBranchRequest",
      "MergeRequest",
      "ResolveMergeRequest",
      "CreateSessionResponse",
      "SessionSummary",
      "MergeResponse",
      "ErrorResponse",
      "`context_update`",
      "`content_delta`",
      "`content_final`",
      "`error`",
    ]) {
      expect(docs).toContain(`### ${title}\n`);
    }
    // the wire's required/optional flags come through: cherry-pick ids optional, decisions required
    expect(docs).toMatch(/\| `message_ids` \| .* \| no \|/);
    expect(docs).toMatch(/\| `decisions` \| object\[\] \(≥ 1 item\(s\)\) \| yes \|/);
  });
});
