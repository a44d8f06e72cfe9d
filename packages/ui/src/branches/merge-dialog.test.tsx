import type { MergeConflict, MergeResponse } from "@arbor/core/browser";
import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { branch } from "../test-support/branches.js";
import { text } from "../test-support/messages.js";
import { resolutionsFrom } from "./conflict-resolver.js";
import {
  cherryPickCandidates,
  MergeDialog,
  type MergeDialogProps,
  mergeDefaults,
} from "./merge-dialog.js";

const pool = [
  text("shared", { id: "m1", role: "user" }),
  text("target says A", { id: "t1" }),
  text("source asks", { id: "s1", role: "user" }),
  text("source says **B**", { id: "s2" }),
];
const main = branch("main", { name: "main", message_ids: ["m1", "t1"] });
const side = branch("side", {
  name: "side",
  parent_branch_id: "main",
  fork_message_id: "m1",
  message_ids: ["m1", "s1", "s2"],
});

const conflict: MergeConflict = {
  conflict_id: "c1",
  kind: "divergent_continuation",
  source_message_ids: ["s2"],
  target_message_ids: ["t1"],
  description: "both branches continued (t1 on the target, s2 on the source)",
  timestamps: [],
  suggested_resolutions: [
    { resolution: "keep_source", description: "Drop the target's answer" },
    { resolution: "keep_target", description: "Drop the source's answer" },
    { resolution: "keep_both", description: "Target's, then source's" },
    { resolution: "custom", description: "Write a note instead" },
  ],
};

function setup(overrides: Partial<MergeDialogProps> = {}) {
  const user = userEvent.setup();
  const onOpenChange = vi.fn();
  const onMerge = vi.fn<MergeDialogProps["onMerge"]>();
  const onResolve = vi.fn<MergeDialogProps["onResolve"]>();
  render(
    <MergeDialog
      open
      onOpenChange={onOpenChange}
      branches={[main, side]}
      messages={pool}
      defaultSourceId="side"
      defaultTargetId="main"
      onMerge={onMerge}
      onResolve={onResolve}
      {...overrides}
    />,
  );
  return { user, onMerge, onResolve, onOpenChange };
}

const strategy = (name: string) => screen.getByRole("radio", { name: new RegExp(`^${name}`) });

describe("MergeDialog", () => {
  it("cherry-picks ticked messages, shows dependency warnings and proceeds", async () => {
    const { user, onMerge, onResolve } = setup();
    const warning: MergeResponse = {
      merge_id: "mg1",
      status: "needs_confirmation",
      warnings: [
        {
          kind: "missing_tool_request",
          message_id: "s2",
          missing_id: "s1",
          description: "The result s2 needs its request s1.",
        },
      ],
    };
    onMerge.mockResolvedValue(warning);
    onResolve.mockResolvedValue({ merge_id: "mg1", status: "merged", warnings: [] });
    await user.click(strategy("Cherry-pick"));
    const merge = screen.getByRole("button", { name: "Merge" });
    expect(merge).toHaveProperty("disabled", true);
    const choices = screen.getByRole("group", { name: "Messages to bring over" });
    expect(within(choices).getAllByRole("checkbox")).toHaveLength(2);
    await user.click(within(choices).getByRole("checkbox", { name: "source says B" }));
    await user.click(merge);
    expect(onMerge).toHaveBeenCalledWith({
      source_branch_id: "side",
      target_branch_id: "main",
      strategy: "cherry_pick",
      message_ids: ["s2"],
    });
    const warnings = await screen.findByRole("list", { name: "Merge warnings" });
    expect(warnings.textContent).toBe("The result s2 needs its request s1.");
    await user.click(screen.getByRole("button", { name: "Proceed with dependencies" }));
    expect(onResolve).toHaveBeenCalledWith("mg1", { proceed: true, include_dependencies: true });
    expect((await screen.findByRole("status")).textContent).toBe("Merged.");
  });

  it("cancels a merge that needs confirmation", async () => {
    const { user, onMerge, onResolve } = setup();
    onMerge.mockResolvedValue({
      merge_id: "mg2",
      status: "needs_confirmation",
      warnings: [{ kind: "nothing_to_merge", description: "Nothing new." }],
    });
    onResolve.mockResolvedValue({ merge_id: "mg2", status: "cancelled" });
    await user.click(screen.getByRole("button", { name: "Merge" }));
    expect(screen.queryByRole("button", { name: "Proceed with dependencies" })).toBeNull();
    await user.click(await screen.findByRole("button", { name: "Cancel" }));
    expect(onResolve).toHaveBeenCalledWith("mg2", { cancel: true });
    expect((await screen.findByRole("status")).textContent).toBe("Merge cancelled.");
  });

  it("resolves rebase conflicts side by side", async () => {
    const { user, onMerge, onResolve, onOpenChange } = setup();
    const second: MergeConflict = {
      ...conflict,
      conflict_id: "c2",
      suggested_resolutions: [
        { resolution: "keep_both", description: "both" },
        { resolution: "custom", description: "note" },
      ],
    };
    onMerge.mockResolvedValue({
      merge_id: "mg3",
      status: "conflicts",
      conflicts: [conflict, second],
    });
    onResolve.mockResolvedValue({ merge_id: "mg3", status: "merged" });
    await user.click(strategy("Rebase"));
    await user.click(screen.getByRole("button", { name: "Merge" }));
    expect(onMerge).toHaveBeenCalledWith({
      source_branch_id: "side",
      target_branch_id: "main",
      strategy: "rebase",
    });
    const first = await screen.findByRole("region", { name: "Conflict 1" });
    const sourceList = within(first).getByRole("list", { name: "Source messages" });
    expect(sourceList.textContent).toBe("assistantsource says B");
    // the preview is rendered markdown, not raw asterisks
    expect(sourceList.querySelector("strong")?.textContent).toBe("B");
    expect(within(first).getByRole("list", { name: "Target messages" }).textContent).toBe(
      "assistanttarget says A",
    );
    // core's description names messages by id; the dialog shows what they say
    expect(first.textContent).toContain(
      "both branches continued (“target says A” on the target, “source says B” on the source)",
    );
    expect(first.textContent).not.toContain("t1 on");
    const other = screen.getByRole("region", { name: "Conflict 2" });
    // only the resolutions core suggested are offered
    expect(within(other).getAllByRole("radio")).toHaveLength(2);
    const resolve = screen.getByRole("button", { name: "Resolve conflicts" });
    await user.click(within(first).getByRole("radio", { name: /^Keep both/ }));
    expect(resolve).toHaveProperty("disabled", true);
    await user.click(within(other).getByRole("radio", { name: /^Custom text/ }));
    expect(resolve).toHaveProperty("disabled", true);
    await user.type(
      within(other).getByRole("textbox", { name: "Custom text for conflict 2" }),
      "We chose B.",
    );
    await user.click(resolve);
    expect(onResolve).toHaveBeenCalledWith("mg3", {
      resolutions: [
        { conflict_id: "c1", resolution: "keep_both" },
        { conflict_id: "c2", resolution: "custom", text: "We chose B." },
      ],
    });
    await screen.findByRole("status");
    await user.click(screen.getByRole("button", { name: "Close" }));
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it("shows a failed request and stays on the step", async () => {
    const { user, onMerge } = setup();
    onMerge.mockRejectedValue(new Error("409 stale merge"));
    await user.click(screen.getByRole("button", { name: "Merge" }));
    expect((await screen.findByRole("alert")).textContent).toBe("409 stale merge");
    expect(screen.getByRole("button", { name: "Merge" })).toHaveProperty("disabled", false);
  });

  it("refuses to merge a branch into itself", async () => {
    const { user } = setup();
    await user.selectOptions(screen.getByRole("combobox", { name: "Source branch" }), "main");
    expect(screen.getByText("Pick two different branches.")).toBeDefined();
    expect(screen.getByRole("button", { name: "Merge" })).toHaveProperty("disabled", true);
  });
});

describe("pure merge helpers", () => {
  it("lists cherry-pick candidates in source order", () => {
    expect(cherryPickCandidates(side, main)).toEqual(["s1", "s2"]);
  });

  it("needs an answer, with text for custom, for every conflict", () => {
    expect(resolutionsFrom([conflict], {})).toBeUndefined();
    expect(
      resolutionsFrom([conflict], { c1: { resolution: "custom", text: "  " } }),
    ).toBeUndefined();
    expect(resolutionsFrom([conflict], { c1: { resolution: "keep_target", text: "" } })).toEqual([
      { conflict_id: "c1", resolution: "keep_target" },
    ]);
  });
});

describe("mergeDefaults", () => {
  it("after a fork, offers the current branch into the one it came from", () => {
    expect(mergeDefaults([main, side], "side")).toEqual({ sourceId: "side", targetId: "main" });
  });

  it("on the first branch, offers the most recently changed other branch into it", () => {
    const older = branch("older", {
      parent_branch_id: "main",
      fork_message_id: "m1",
      updated_at: "2025-01-01T00:00:00Z",
    });
    const newer = { ...side, updated_at: "2030-01-01T00:00:00Z" };
    expect(mergeDefaults([main, older, newer], "main")).toEqual({
      sourceId: "side",
      targetId: "main",
    });
  });

  it("a branch whose parent was deleted is the target, like a first branch", () => {
    const orphan = { ...side, parent_branch_id: "gone" };
    expect(mergeDefaults([main, orphan], "side")).toEqual({ sourceId: "main", targetId: "side" });
  });
});
