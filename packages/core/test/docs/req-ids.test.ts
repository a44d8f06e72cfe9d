import { describe, expect, it } from "vitest";
import { reqIdsIn, reqIdsInTree } from "../../../../scripts/req-ids.mjs";
import { REPO, readRepoFile } from "./repo-files.js";

// The `REQ-…` ids in code, tests and docs point at the agent runtime's specification, which is not
// in the repository: docs/spec/agent-runtime.md holds the line of every id cited (issue #29).

const excerpts = readRepoFile("docs/spec/agent-runtime.md");
const defined = new Set(
  [...excerpts.matchAll(/^- \*\*(REQ-\d{3}):\*\* \S/gm)].map((m) => m[1] ?? ""),
);

describe("docs/spec/agent-runtime.md", () => {
  it("defines every REQ id cited in the tree", () => {
    const cited = reqIdsInTree(REPO);
    expect(cited.size).toBeGreaterThan(150);
    expect([...cited].filter((id) => !defined.has(id)).sort()).toEqual([]);
  });

  it("holds only requirements the tree cites, each once", () => {
    const lines = [...excerpts.matchAll(/^- \*\*(REQ-\d{3}):\*\*/gm)].map((m) => m[1]);
    expect(lines.length).toBe(defined.size);
    const cited = reqIdsInTree(REPO);
    expect([...defined].filter((id) => !cited.has(id))).toEqual([]);
  });
});

describe("reqIdsIn", () => {
  it("reads single ids and expands ranges", () => {
    expect([...reqIdsIn("REQ-091; REQ-109–111 and REQ-001 through REQ-002, REQ-5-6")]).toEqual([
      "REQ-091",
      "REQ-109",
      "REQ-110",
      "REQ-111",
      "REQ-001",
      "REQ-002",
      "REQ-005",
      "REQ-006",
    ]);
  });
});
