import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, readRepoFile } from "./repo-files.js";

// docs/README.md lets a newcomer find, in under a minute, where a message enters, where the agent
// loop is and where a tool call is approved; docs/glossary.md says where each concept lives
// (issue #29). Every path they give must exist.

/** The repository paths a doc names in backticks (`apps/…`, `packages/…`, `docs/…`, …). */
function pathsIn(text: string): string[] {
  return [
    ...new Set(
      [...text.matchAll(/`((?:apps|packages|docs|e2e|scripts)\/[^`\s]+)`/g)].map((m) => m[1] ?? ""),
    ),
  ];
}

const README = readRepoFile("docs/README.md");
const GLOSSARY = readRepoFile("docs/glossary.md");

describe("docs/README.md and docs/glossary.md", () => {
  it("name only paths that exist", () => {
    const named = [...pathsIn(README), ...pathsIn(GLOSSARY)];
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((path) => !existsSync(join(REPO, path)))).toEqual([]);
  });

  it("answer the newcomer's three questions with a file each", () => {
    const section = (heading: string) => {
      const start = README.indexOf(`## ${heading}`);
      expect(start, heading).toBeGreaterThan(-1);
      return README.slice(start, README.indexOf("\n## ", start + 1));
    };
    expect(pathsIn(section("Where a chat message enters"))).toContain(
      "apps/web/app/api/sessions/[id]/messages/route.ts",
    );
    expect(pathsIn(section("Where the agent loop is"))).toContain(
      "packages/core/src/agent/loop.ts",
    );
    expect(pathsIn(section("Where a tool call is approved"))).toEqual(
      expect.arrayContaining([
        "packages/core/src/context/session/approval-policy.ts",
        "apps/web/app/api/sessions/[id]/approvals/route.ts",
      ]),
    );
  });

  it("define every word the issue asks for, bold, at the start of a paragraph", () => {
    const terms = [...GLOSSARY.matchAll(/^\*\*([^*]+)\.\*\*/gm)].map((m) => m[1]);
    for (const term of [
      "Fold",
      "Branch",
      "Candidate",
      "Optimization",
      "Run",
      "Loop",
      "Operation",
      "Session",
      "Turn",
      "Approval",
      "Sub-agent",
      "Skill",
      "Workspace trust",
    ]) {
      expect(terms).toContain(term);
    }
  });

  it("link only docs that exist", () => {
    for (const [doc, text] of [
      ["docs/README.md", README],
      ["docs/glossary.md", GLOSSARY],
    ] as const) {
      for (const m of text.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)) {
        expect(existsSync(join(REPO, "docs", m[1] ?? "")), `${doc} links ${m[1]}`).toBe(true);
      }
    }
  });
});
