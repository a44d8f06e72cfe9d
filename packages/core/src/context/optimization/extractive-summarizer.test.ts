import { describe, expect, it } from "vitest";
import { fileReference, text, toolPair } from "../../../test/support/random-context-history.js";
import { estimateTextTokens } from "../../agent/token-count.js";
import type { ContextMessage } from "../../model/message-types.js";
import { extractiveSummary, factKind } from "./extractive-summarizer.js";

// Issue #15: the extractive summary keeps the facts word for word — identifiers, numbers and
// codes, file paths, URLs, names, decisions, errors and their fixes, open questions — each with
// its turn, deduplicated, within its token share; and it carries an earlier summary's facts over.

/** turn numbers the way the optimizer gives them: each user text starts a turn */
function turns(messages: readonly ContextMessage[]) {
  const of = new Map<ContextMessage, number>();
  let turn = 0;
  for (const message of messages) {
    if (message.role === "user" && message.body.message_type !== "tool_result") turn++;
    of.set(message, turn);
  }
  return { turnOf: (m: ContextMessage) => of.get(m) };
}

function summaryMessage(id: string, summaryText: string): ContextMessage {
  return {
    id,
    session_id: "s",
    role: "system",
    status: "complete",
    created_at: "2025-01-01T00:00:00.000Z",
    body: { message_type: "system_control", kind: "summary", text: summaryText, replaces: [] },
  };
}

const planted = [
  "Turn 1: the vault code for room R1 is garnet-1084.",
  "The staging database lives at https://db.internal.example.com:5432/arbor.",
  "Alice Morgan owns the billing service.",
  "The retry limit is 17 attempts.",
  "The config loader is in packages/core/src/config/loader.ts.",
  "We will use pnpm workspaces for every package.",
  "The build failed with error TS2305 in loader.ts; the fix was to export the type.",
  "Should the cache live in src/cache/index.ts?",
];

describe("extractive summary: planted facts", () => {
  it("classifies each kind of fact", () => {
    expect(factKind("Turn 1: the vault code for room R1 is garnet-1084.")).toBe("fact");
    expect(factKind("Alice Morgan owns the billing service.")).toBe("fact");
    expect(factKind("We will use pnpm workspaces for every package.")).toBe("decision");
    expect(factKind("Use the sqlite store in tests.")).toBe("decision");
    expect(factKind("The build failed with error TS2305.")).toBe("error");
    expect(factKind("Should the cache live in src/cache/index.ts?")).toBe("question");
    expect(factKind("Thanks, that helps a lot.")).toBeUndefined();
    expect(factKind("Noted, I will keep that in mind.")).toBeUndefined();
  });

  it("keeps every planted fact word for word with its turn, grouped by kind, and drops small talk", () => {
    const batch = planted.flatMap((fact, i) => [
      text(`u${i}`, "user", `${fact} Thanks a lot!`),
      text(`a${i}`, "assistant", "Noted, I will keep that in mind."),
    ]);
    const summary = extractiveSummary(batch, turns(batch));
    for (const fact of planted) expect(summary).toContain(fact);
    expect(summary).toContain("- [1 user] Turn 1: the vault code for room R1 is garnet-1084.");
    expect(summary).toContain("- [4 user] The retry limit is 17 attempts.");
    expect(summary).toContain(
      "Decisions:\n- [6 user] We will use pnpm workspaces for every package.",
    );
    expect(summary).toContain(
      "Errors and fixes:\n- [7 user] The build failed with error TS2305 in loader.ts; the fix was to export the type.",
    );
    expect(summary).toContain(
      "Open questions:\n- [8 user] Should the cache live in src/cache/index.ts?",
    );
    expect(summary).not.toContain("Thanks a lot");
    // what was said without a fact: once (deduplicated), as a first line
    expect(summary.match(/Noted, I will keep that in mind\./g)).toHaveLength(1);
    const copy = structuredClone(batch);
    expect(extractiveSummary(copy, turns(copy))).toBe(summary);
  });

  it("deduplicates a fact stated twice (the first turn is kept)", () => {
    const batch = [
      text("u1", "user", "The vault code for room R12 is garnet-1084."),
      text("u2", "user", "Again: the vault code for room R12 is garnet-1084."),
      text("u3", "user", "The vault code for room R12 is garnet-1084."),
    ];
    const summary = extractiveSummary(batch, turns(batch));
    expect(summary.match(/vault code for room R12 is garnet-1084\./g)).toHaveLength(2);
    expect(summary).toContain("- [1 user] The vault code for room R12 is garnet-1084.");
    expect(summary).not.toContain("[3 user]");
  });

  it("records tools, files and failed results with their turn (a file reference starts one)", () => {
    const batch = [
      text("u", "user", "Fix the config loader"),
      fileReference("f", "src/config.ts", "export {}"),
      ...toolPair("t", [
        { name: "read_file", args: { path: "src/loader.ts" }, output: "ok" },
        { name: "bash", args: { command: "pnpm test" }, output: "3 tests failed", status: "error" },
        { name: "read_file", args: { path: "src/loader.ts" }, output: "ok" },
      ]),
      text("a", "assistant", "Fixed it by exporting the loader type."),
    ];
    const summary = extractiveSummary(batch, turns(batch));
    expect(summary).toBe(
      [
        "Summary of 7 earlier messages:",
        "Errors and fixes:",
        "- [1 user] Fix the config loader",
        "- [2 tool] bash error: 3 tests failed",
        "- [2 assistant] Fixed it by exporting the loader type.",
        "Tools called: read_file ×2, bash",
        "Files touched: src/config.ts, src/loader.ts",
      ].join("\n"),
    );
  });

  it("stays within its token share, keeping the newest facts of the highest kinds", () => {
    const batch = Array.from({ length: 120 }, (_, i) =>
      text(`u${i}`, "user", `The vault code for room R${i} is garnet-${1000 + i}.`),
    );
    batch.push(text("d", "user", "We will ship on Friday."));
    const summary = extractiveSummary(batch, { ...turns(batch), maxTokens: 300 });
    expect(estimateTextTokens(summary)).toBeLessThanOrEqual(300);
    expect(summary).toContain("We will ship on Friday.");
    expect(summary).toContain("garnet-1119");
    expect(summary).not.toContain("garnet-1000");
    expect(summary).toMatch(/\(\d+ more lines left out for space\)/);
    // a generous share keeps them all
    const all = extractiveSummary(batch, { ...turns(batch), maxTokens: 10_000 });
    for (let i = 0; i < 120; i++) expect(all).toContain(`garnet-${1000 + i}`);
  });

  it("carries an earlier summary's facts over, with their turns, when it is summarized again", () => {
    const first = [
      text("u1", "user", "The vault code for room R1 is garnet-1084."),
      text("u2", "user", "We will keep the archive in cold storage."),
      ...toolPair("t", [{ name: "read_file", args: { path: "notes/a.md" }, output: "ok" }]),
    ];
    const earlier = summaryMessage("s1", extractiveSummary(first, turns(first)));
    const later = [
      earlier,
      text("u3", "user", "The vault code for room R3 is cobalt-2210."),
      ...toolPair("t2", [{ name: "read_file", args: { path: "notes/b.md" }, output: "ok" }]),
    ];
    const turnOf = (m: ContextMessage) => (m.id === "u3" ? 3 : undefined);
    const summary = extractiveSummary(later, { turnOf });
    expect(summary).toContain("- [1 user] The vault code for room R1 is garnet-1084.");
    expect(summary).toContain("- [2 user] We will keep the archive in cold storage.");
    expect(summary).toContain("- [3 user] The vault code for room R3 is cobalt-2210.");
    expect(summary).toContain("Tools called: read_file ×2");
    expect(summary).toContain("Files touched: notes/a.md, notes/b.md");
    expect(summary).not.toContain("Summary of 3 earlier messages");
  });

  it("keeps the facts of a model's summary when it summarizes one", () => {
    const model = summaryMessage(
      "s",
      "The user set the retry limit to 17.\nThey were friendly.\nDeploys go through https://ci.example.com/runs/42.",
    );
    const summary = extractiveSummary([model]);
    expect(summary).toContain("- [earlier] The user set the retry limit to 17.");
    expect(summary).toContain("- [earlier] Deploys go through https://ci.example.com/runs/42.");
    expect(summary).not.toContain("friendly");
  });
});
