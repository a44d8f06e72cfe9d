import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { Agent } from "../src/agent/agent.js";
import { modelConfig } from "../src/model/llm-config.js";
import { listSessionIds, loadSession } from "../src/recording/session-files.js";
import { ScriptedProvider } from "../src/testing/scripted-provider.js";

// docs/concepts/sessions.md (REQ-219, issue #26 finding 10): the sections the specification
// lists, nine design decisions, and its code example run as written against the package.

const here = dirname(fileURLToPath(import.meta.url));
const doc = readFileSync(join(here, "../../../docs/concepts/sessions.md"), "utf8");

describe("docs/concepts/sessions.md", () => {
  it("has every section the specification lists and nine design decisions", () => {
    const headings = [...doc.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    for (const section of [
      "Overview",
      "Session Formation",
      "LoopRecord Anatomy",
      "Loop Tree Navigation",
      "Cross-Session Sub-Agent Tracking",
      "Parallel Evaluation Groups",
      "Recording an Agent",
      "Persistence API",
      "Design Decisions",
    ]) {
      expect(headings).toContain(section);
    }
    const decisions = doc.slice(doc.indexOf("## Design Decisions"));
    const numbered = [...decisions.matchAll(/^(\d+)\. \*\*/gm)].map((m) => Number(m[1]));
    expect(numbered).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const part of ["*Decision:*", "*Why:*", "*Rejected:*"]) {
      expect(decisions.split(part).length - 1).toBe(9);
    }
    for (const name of [
      "newSession()",
      "checkAndRotate(",
      "lastActiveAt",
      "saveSession",
      "loadSession",
      "listSessionIds",
      "loadSessionsForAgent",
      "deleteSession",
      "`rerun`",
      "`branch`",
    ]) {
      expect(doc).toContain(name);
    }
  });

  it("its example runs: an agent's sessions saved as files, read back as a tree", async () => {
    const block = doc.match(/<!-- example: sessions[^>]*-->\n```ts\n([\s\S]*?)```/)?.[1];
    expect(block).toBeDefined();
    const source = (block ?? "").replace(
      'from "@arbor/core"',
      `from ${JSON.stringify(join(here, "../src/index.ts"))}`,
    );
    const work = mkdtempSync(join(here, ".sessions-doc-"));
    try {
      const file = join(work, "example.ts");
      writeFileSync(file, source);
      const example = (await import(file)) as {
        ask: (agent: Agent, text: string, dir: string) => Promise<void>;
        newestTree: (dir: string) => Promise<string[]>;
      };
      const dir = mkdtempSync(join(tmpdir(), "arbor-sessions-doc-"));
      const agent = new Agent({
        provider: new ScriptedProvider([
          { blocks: [{ type: "text", text: "one" }] },
          { blocks: [{ type: "text", text: "two" }] },
        ]),
        model: modelConfig({ protocol: "offline", model: "scripted-model" }),
        configId: "cfg",
      });
      await example.ask(agent, "first", dir);
      const first = agent.sessionId;
      expect(await example.newestTree(dir)).toEqual([
        expect.stringMatching(new RegExp(`^${first}\\.cfg\\.1 completed \\d+$`)),
      ]);
      // idle past the threshold: the example's checkAndRotate starts a new session
      const quiet = agent.lastActiveAt?.getTime() ?? 0;
      vi.useFakeTimers({ toFake: ["Date"], now: quiet + 31 * 60_000 });
      try {
        await example.ask(agent, "second", dir);
      } finally {
        vi.useRealTimers();
      }
      expect(agent.sessionId).not.toBe(first);
      expect((await listSessionIds(dir)).sort()).toEqual([first, agent.sessionId].sort());
      expect((await loadSession(dir, agent.sessionId)).loops).toHaveLength(1);
      rmSync(dir, { recursive: true, force: true });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
