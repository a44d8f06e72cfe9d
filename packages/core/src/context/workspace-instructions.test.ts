import { mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ContextMessage } from "../model/message-types.js";
import {
  filesWorkedOn,
  InstructionFileCache,
  instructionCandidates,
  readWorkspaceInstructions,
} from "./workspace-instructions.js";

function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "arbor-instructions-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
function message(i: number, body: ContextMessage["body"]): ContextMessage {
  return {
    id: `m${i}`,
    session_id: "s",
    role: "user",
    body,
    status: "complete",
    created_at: at(i),
  };
}

describe("instructionCandidates", () => {
  it("nearest AGENTS.md first, up to the root, then the root files; no repeats, nothing outside", () => {
    expect(
      instructionCandidates(["src/api/routes.ts", "src/util.ts", "../x/y.ts", "/etc/z"]),
    ).toEqual([
      "src/api/AGENTS.md",
      "src/AGENTS.md",
      "AGENTS.md",
      "CLAUDE.md",
      ".arbor/instructions.md",
    ]);
    expect(instructionCandidates([])).toEqual(["AGENTS.md", "CLAUDE.md", ".arbor/instructions.md"]);
  });
});

describe("filesWorkedOn", () => {
  it("file references and tool-call paths, newest first", () => {
    const messages = [
      message(1, { message_type: "file_reference", path: "a/one.ts" }),
      message(2, {
        message_type: "tool_request",
        text: "",
        thinking: [],
        calls: [
          { id: "c1", name: "read_file", arguments: { path: "b/two.ts" }, approval: "approved" },
          { id: "c2", name: "bash", arguments: { command: "ls" }, approval: "approved" },
        ],
      }),
      message(3, { message_type: "text", text: "hi" }),
    ];
    expect(filesWorkedOn(messages)).toEqual(["b/two.ts", "a/one.ts"]);
  });
});

describe("readWorkspaceInstructions", () => {
  it("Workspace context injection: reads AGENTS.md, CLAUDE.md and .arbor/instructions.md, nearest first, each under its path", () => {
    const root = workspace({
      "AGENTS.md": "Run pnpm test.",
      "CLAUDE.md": "Prefer small diffs.",
      ".arbor/instructions.md": "Never touch vendor/.",
      "src/api/AGENTS.md": "Routes stay thin.",
      "src/api/routes.ts": "",
    });
    const read = readWorkspaceInstructions(root, { nearFiles: ["src/api/routes.ts"] });
    expect(read.files.map((f) => f.path)).toEqual([
      "src/api/AGENTS.md",
      "AGENTS.md",
      "CLAUDE.md",
      ".arbor/instructions.md",
    ]);
    expect(read.text).toBe(
      [
        "From src/api/AGENTS.md:\nRoutes stay thin.",
        "From AGENTS.md:\nRun pnpm test.",
        "From CLAUDE.md:\nPrefer small diffs.",
        "From .arbor/instructions.md:\nNever touch vendor/.",
      ].join("\n\n"),
    );
    expect(read.files.every((f) => !f.truncated)).toBe(true);
  });

  it("caps the total: the file that crosses the cap is cut and says so, later ones get no room", () => {
    const root = workspace({ "AGENTS.md": "a".repeat(30), "CLAUDE.md": "b".repeat(30) });
    const read = readWorkspaceInstructions(root, { maxChars: 40 });
    expect(read.files).toEqual([
      { path: "AGENTS.md", chars: 30, truncated: false },
      { path: "CLAUDE.md", chars: 10, truncated: true },
    ]);
    expect(read.text).toContain(`From CLAUDE.md:\n${"b".repeat(10)}\n[… cut`);
    const none = readWorkspaceInstructions(root, { maxChars: 30 });
    expect(none.files[1]).toEqual({ path: "CLAUDE.md", chars: 0, truncated: true });
    expect(none.text).not.toContain("CLAUDE.md");
  });

  it("refreshed when a file changes (mtime), also through the cache; a deleted file drops out", () => {
    const root = workspace({ "AGENTS.md": "first" });
    const cache = new InstructionFileCache();
    expect(readWorkspaceInstructions(root, { cache }).text).toBe("From AGENTS.md:\nfirst");
    writeFileSync(join(root, "AGENTS.md"), "second");
    utimesSync(join(root, "AGENTS.md"), new Date(), new Date(Date.now() + 5_000));
    expect(readWorkspaceInstructions(root, { cache }).text).toBe("From AGENTS.md:\nsecond");
    writeFileSync(join(root, "CLAUDE.md"), "new file");
    expect(readWorkspaceInstructions(root, { cache }).files.map((f) => f.path)).toEqual([
      "AGENTS.md",
      "CLAUDE.md",
    ]);
  });

  it("skips files whose symlink leads outside the workspace, blank files and a missing root", () => {
    const outside = workspace({ "secret.md": "do not read" });
    const root = workspace({ "CLAUDE.md": "   \n" });
    symlinkSync(join(outside, "secret.md"), join(root, "AGENTS.md"));
    expect(readWorkspaceInstructions(root)).toEqual({ text: "", files: [], max_chars: 16_000 });
    expect(readWorkspaceInstructions(join(root, "missing")).files).toEqual([]);
  });
});
