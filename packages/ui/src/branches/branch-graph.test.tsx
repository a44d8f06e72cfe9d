import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { branch } from "../test-support/branches.js";
import { text } from "../test-support/messages.js";
import { BranchGraph } from "./branch-graph.js";

// main has nothing after the fork point: the fork is a branch of its own, not a version of a message
const branches = [
  branch("main", { name: "main", message_ids: ["m1"] }),
  branch("b1", {
    name: "experiment",
    parent_branch_id: "main",
    fork_message_id: "m1",
    message_ids: ["m1", "x1"],
    merged_from: [],
  }),
];

function setup() {
  const user = userEvent.setup();
  const onSwitch = vi.fn();
  const onMerge = vi.fn(async () => ({ merge_id: "mg", status: "merged" as const }));
  render(
    <BranchGraph
      branches={branches}
      currentBranchId="main"
      onSwitch={onSwitch}
      messages={[]}
      onMerge={onMerge}
      onResolve={vi.fn()}
    />,
  );
  return { user, onSwitch, onMerge };
}

describe("BranchGraph", () => {
  it("draws branches and the fork point, with the current branch marked", async () => {
    setup();
    const current = await screen.findByRole("button", { name: "Branch main (current)" });
    expect(current.getAttribute("aria-current")).toBe("true");
    expect(screen.getByRole("button", { name: "Branch experiment" }).textContent).toContain(
      "2 messages",
    );
    expect(screen.getByRole("img", { name: "Fork point after message m1" })).toBeDefined();
  });

  it("draws a merge edge between the side handles of the two branches", async () => {
    const merged = [
      ...branches,
      branch("b2", {
        name: "other",
        parent_branch_id: "main",
        fork_message_id: "m1",
        merged_from: [
          { branch_id: "b1", merge_id: "mg1", strategy: "append", at: "2025-06-10T12:01:00Z" },
        ],
      }),
    ];
    const { container } = render(
      <BranchGraph
        branches={merged}
        currentBranchId="main"
        onSwitch={vi.fn()}
        messages={[]}
        onMerge={vi.fn()}
        onResolve={vi.fn()}
      />,
    );
    // React Flow leaves out an edge whose named handle a node does not have
    expect(await screen.findByTestId("rf__edge-merge:mg1")).toBeDefined();
    expect(container.querySelectorAll(".react-flow__edge")).toHaveLength(4);
    for (const id of ["b1", "b2"]) {
      const sides = [
        ...container.querySelectorAll(`[data-nodeid="${id}"][data-handleid^="merge-"]`),
      ]
        .map((h) => `${h.getAttribute("data-handleid")}@${h.getAttribute("data-handlepos")}`)
        .sort();
      expect(sides).toEqual([
        "merge-in-left@left",
        "merge-in-right@right",
        "merge-out-left@left",
        "merge-out-right@right",
      ]);
    }
    // fork points have no side handles: nothing can attach a merge edge to them
    expect(
      container.querySelectorAll(`[data-nodeid^="fork:"][data-handleid^="merge-"]`),
    ).toHaveLength(0);
  });

  it("switches on click, but not to the current branch", async () => {
    const { user, onSwitch } = setup();
    await user.click(await screen.findByRole("button", { name: "Branch experiment" }));
    expect(onSwitch).toHaveBeenCalledWith("b1");
    await user.click(screen.getByRole("button", { name: "Branch main (current)" }));
    expect(onSwitch).toHaveBeenCalledTimes(1);
  });

  it("opens the merge dialog with the current branch as target", async () => {
    const { user, onMerge } = setup();
    await user.click(screen.getByRole("button", { name: "Merge…" }));
    expect(screen.getByRole("dialog", { name: "Merge branches" })).toBeDefined();
    expect(
      (screen.getByRole("combobox", { name: "Target branch" }) as HTMLSelectElement).value,
    ).toBe("main");
    expect(
      (screen.getByRole("combobox", { name: "Source branch" }) as HTMLSelectElement).value,
    ).toBe("b1");
    await user.click(screen.getByRole("button", { name: "Merge" }));
    expect(onMerge).toHaveBeenCalledWith({
      source_branch_id: "b1",
      target_branch_id: "main",
      strategy: "append",
    });
    expect((await screen.findByRole("status")).textContent).toBe("Merged.");
  });

  it("continues a pending merge at its conflicts", async () => {
    const user = userEvent.setup();
    render(
      <BranchGraph
        branches={branches}
        currentBranchId="main"
        onSwitch={vi.fn()}
        messages={[]}
        onMerge={vi.fn()}
        onResolve={vi.fn()}
        pendingMerge={{
          merge_id: "mg9",
          status: "conflicts",
          conflicts: [
            {
              conflict_id: "c1",
              kind: "divergent_continuation",
              source_message_ids: ["x1"],
              target_message_ids: ["m2"],
              description: "Both answered.",
              timestamps: [],
              suggested_resolutions: [],
            },
          ],
        }}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Continue pending merge" }));
    expect(screen.getByRole("region", { name: "Conflict 1" }).textContent).toContain(
      "Both answered.",
    );
    // no suggestions from core: all four resolutions are offered
    expect(screen.getAllByRole("radio")).toHaveLength(4);
  });

  it("groups the versions of one message in one node, each version a button", async () => {
    const user = userEvent.setup();
    const onSwitch = vi.fn();
    const versions = [
      branch("main", { name: "main", message_ids: ["u1", "a1"] }),
      branch("r1", {
        name: "branch-2",
        parent_branch_id: "main",
        fork_message_id: "u1",
        message_ids: ["u1", "a2"],
      }),
      branch("r2", {
        name: "branch-3",
        parent_branch_id: "r1",
        fork_message_id: "u1",
        message_ids: ["u1", "a3"],
      }),
    ];
    render(
      <BranchGraph
        branches={versions}
        currentBranchId="r2"
        onSwitch={onSwitch}
        messages={[text("Forty-two.", { id: "a1" })]}
        onMerge={vi.fn()}
        onResolve={vi.fn()}
      />,
    );
    const group = await screen.findByRole("group", {
      name: "3 versions of the answer “Forty-two.”",
    });
    const buttons = within(group).getAllByRole("button");
    expect(buttons.map((b) => b.getAttribute("aria-label"))).toEqual([
      "Branch branch-2",
      "Branch branch-3 (current)",
    ]);
    await user.click(within(group).getByRole("button", { name: "Branch branch-2" }));
    expect(onSwitch).toHaveBeenCalledWith("r1");
    // after the regenerates, the merge dialog offers the current version into the one before
    await user.click(screen.getByRole("button", { name: "Merge…" }));
    expect(
      (screen.getByRole("combobox", { name: "Source branch" }) as HTMLSelectElement).value,
    ).toBe("r2");
    expect(
      (screen.getByRole("combobox", { name: "Target branch" }) as HTMLSelectElement).value,
    ).toBe("r1");
  });
});
