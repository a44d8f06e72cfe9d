import { describe, expect, it } from "vitest";
import { collect, errors, harness, say } from "../../../test/support/session-harness.js";
import { DEFAULT_BASE_PROMPT } from "../system-prompt.js";

// Branch-specific prompt override and pipeline configuration, set through the session (the
// branch API's PATCH), and renaming: one branch changes, the others stay as they were.

async function twoBranches(turns = 4) {
  const h = harness(Array.from({ length: turns }, (_, i) => say(`answer ${i + 1}`)));
  const session = await h.manager.create({ config: { system_prompt: "Session base prompt." } });
  await collect(session.sendMessage({ type: "text", text: "a" }));
  const main = session.activeBranchId;
  const first = session.messages().messages[0]!.id;
  await collect(session.createBranch({ from_message_id: first, name: "alt" }));
  const alt = session.activeBranchId;
  return { h, session, main, alt };
}

describe("updateBranch", () => {
  it("Branch-specific prompt override: the branch's prompt replaces the base for that branch only; null restores it", async () => {
    const { h, session, main, alt } = await twoBranches();
    const before = structuredClone(session.branches.find((b) => b.id === main));
    const events = await collect(
      session.updateBranch(alt, { system_prompt: "Answer as a pirate." }),
    );
    expect(errors(events)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ payload: { metadata: { branch_updated: alt } } });
    expect(session.branches.find((b) => b.id === main)).toEqual(before);

    await collect(session.sendMessage({ type: "text", text: "on alt" }));
    const altPrompt = h.provider.requests.at(-1)!.systemPrompt;
    expect(altPrompt.startsWith("Answer as a pirate.")).toBe(true);
    expect(altPrompt).not.toContain("Session base prompt.");

    await collect(session.switchBranch(main));
    await collect(session.sendMessage({ type: "text", text: "on main" }));
    expect(h.provider.requests.at(-1)!.systemPrompt.startsWith("Session base prompt.")).toBe(true);

    // stored, so a reload keeps it; null clears it
    const stored = await h.store.loadSession(session.id);
    expect(stored?.branches.find((b) => b.id === alt)?.system_prompt).toBe("Answer as a pirate.");
    await collect(session.updateBranch(alt, { system_prompt: null }));
    expect(session.branches.find((b) => b.id === alt)).not.toHaveProperty("system_prompt");
    expect(DEFAULT_BASE_PROMPT.length).toBeGreaterThan(0);
  });

  it("Branch-specific pipeline configuration: the branch runs its own processors; unknown names are refused naming pipeline.processors", async () => {
    const { h, session, main, alt } = await twoBranches(2);
    const refused = await collect(
      session.updateBranch(alt, { pipeline: { processors: ["file_reference", "telepathy"] } }),
    );
    expect(errors(refused).map((e) => e.code)).toEqual(["invalid_request"]);
    expect(errors(refused)[0]?.message).toMatch(
      /^pipeline\.processors: unknown pipeline processor: telepathy/,
    );
    expect(session.branches.find((b) => b.id === alt)).not.toHaveProperty("pipeline");

    await collect(
      session.updateBranch(alt, {
        pipeline: { processors: ["file_reference", "tool_enhancement"] },
      }),
    );
    expect(session.branches.find((b) => b.id === alt)?.pipeline).toEqual({
      processors: ["file_reference", "tool_enhancement"],
    });
    expect(session.branches.find((b) => b.id === main)).not.toHaveProperty("pipeline");
    const stored = await h.store.loadSession(session.id);
    expect(stored?.branches.find((b) => b.id === alt)?.pipeline?.processors).toHaveLength(2);
    await collect(session.updateBranch(alt, { pipeline: null }));
    expect(session.branches.find((b) => b.id === alt)).not.toHaveProperty("pipeline");
  });

  it("rename: trimmed, unique among the session's branches, stored; an unknown branch is refused", async () => {
    const { h, session, main, alt } = await twoBranches(1);
    const mainName = session.branches.find((b) => b.id === main)!.name;
    const clash = await collect(session.updateBranch(alt, { name: mainName }));
    expect(errors(clash)[0]?.message).toBe(`name: a branch is already called ${mainName}`);
    await collect(session.updateBranch(alt, { name: "  experiment  " }));
    expect(session.branches.find((b) => b.id === alt)?.name).toBe("experiment");
    expect(session.branches.find((b) => b.id === main)?.name).toBe(mainName);
    expect((await h.store.loadSession(session.id))?.branches.map((b) => b.name).sort()).toEqual(
      ["experiment", mainName].sort(),
    );
    const unknown = await collect(session.updateBranch("nope", { name: "x" }));
    expect(errors(unknown).map((e) => e.code)).toEqual(["invalid_request"]);
  });
});

describe("deleteBranch and merges", () => {
  it("a branch that was merged into another can be deleted: the target keeps its messages and its merge record", async () => {
    const { session, main, alt } = await twoBranches(3);
    await collect(session.sendMessage({ type: "text", text: "on alt" }));
    await collect(session.switchBranch(main));
    const merged = await collect(
      session.merge({ source_branch_id: alt, target_branch_id: main, strategy: "append" }),
    );
    expect(errors(merged)).toEqual([]);
    const target = () => session.branches.find((b) => b.id === main)!;
    const idsBefore = [...target().message_ids];
    expect(target().merged_from.map((m) => m.branch_id)).toEqual([alt]);
    expect(errors(await collect(session.deleteBranch(alt)))).toEqual([]);
    expect(session.branches.map((b) => b.id)).toEqual([main]);
    expect(target().message_ids).toEqual(idsBefore);
    expect(target().merged_from.map((m) => m.branch_id)).toEqual([alt]);
    expect(session.messages().messages.map((m) => m.id)).toEqual(idsBefore);
  });
});
