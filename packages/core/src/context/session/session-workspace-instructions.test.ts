import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  collect,
  errors,
  harness,
  say,
  tempWorkspace,
} from "../../../test/support/session-harness.js";

// Workspace context injection: the instruction files reach the model's system prompt, nearest
// first, and an edit is picked up by the next request.

describe("Workspace instructions in the prompt", () => {
  it("puts AGENTS.md / CLAUDE.md / .arbor/instructions.md and the referenced file's AGENTS.md into the system prompt", async () => {
    const workspace = tempWorkspace({
      "AGENTS.md": "Run pnpm test before you finish.",
      "CLAUDE.md": "Keep diffs small.",
      "notes.txt": "alpha\n",
    });
    mkdirSync(join(workspace, "pkg", ".arbor"), { recursive: true });
    mkdirSync(join(workspace, ".arbor"), { recursive: true });
    writeFileSync(join(workspace, ".arbor", "instructions.md"), "No new dependencies.");
    writeFileSync(join(workspace, "pkg", "AGENTS.md"), "pkg is generated code.");
    writeFileSync(join(workspace, "pkg", "gen.ts"), "export {};\n");
    const h = harness([say("ok"), say("ok again")]);
    const session = await h.manager.create({ config: { workspace } });
    expect(session.workspaceInstructions().files.map((f) => f.path)).toEqual([
      "AGENTS.md",
      "CLAUDE.md",
      ".arbor/instructions.md",
    ]);

    const events = await collect(
      session.sendMessage({ type: "file_reference", path: "pkg/gen.ts" }),
    );
    expect(errors(events)).toEqual([]);
    const prompt = h.provider.requests[0]!.systemPrompt;
    expect(prompt).toContain("Workspace instructions:");
    const order = [
      "From pkg/AGENTS.md:\npkg is generated code.",
      "From AGENTS.md:\nRun pnpm test before you finish.",
      "From CLAUDE.md:\nKeep diffs small.",
      "From .arbor/instructions.md:\nNo new dependencies.",
    ].map((block) => prompt.indexOf(block));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // the conversation now works on pkg/gen.ts: its directory's AGENTS.md is in use
    expect(session.workspaceInstructions().files[0]?.path).toBe("pkg/AGENTS.md");

    // edited between two requests: the next request sees the new text
    writeFileSync(join(workspace, "AGENTS.md"), "Run pnpm lint too.");
    utimesSync(join(workspace, "AGENTS.md"), new Date(), new Date(Date.now() + 5_000));
    await collect(session.sendMessage({ type: "text", text: "again" }));
    const second = h.provider.requests[1]!.systemPrompt;
    expect(second).toContain("From AGENTS.md:\nRun pnpm lint too.");
    expect(second).not.toContain("Run pnpm test before you finish.");
  });

  it("no instruction files: no instructions section, and none in use", async () => {
    const workspace = tempWorkspace({ "notes.txt": "alpha\n" });
    const h = harness([say("ok")]);
    const session = await h.manager.create({ config: { workspace } });
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(h.provider.requests[0]!.systemPrompt).not.toContain("Workspace instructions:");
    expect(session.workspaceInstructions()).toEqual({ text: "", files: [], max_chars: 16_000 });
  });
});
