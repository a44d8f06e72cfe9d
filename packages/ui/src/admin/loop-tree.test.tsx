import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { loop, loops } from "../test-support/loops.js";
import { LoopTree } from "./loop-tree.js";

describe("LoopTree", () => {
  it("shows status, duration and usage per node and links to messages", async () => {
    const user = userEvent.setup();
    const onSelectLoop = vi.fn();
    render(<LoopTree loops={loops} onSelectLoop={onSelectLoop} />);
    const root = screen.getByRole("listitem", { name: "Loop root" });
    expect(root.textContent).toContain("1.5 s");
    expect(root.textContent).toContain("150 tokens");
    expect(root.textContent).toContain("m-1");
    // who started the run (issue #25); a loop without a person says nothing of one
    expect(root.textContent).toContain("started by Ana");
    expect(screen.getByRole("listitem", { name: "Loop next" }).textContent).not.toContain(
      "started by",
    );
    const sub = within(root).getByRole("listitem", { name: "Loop sub" });
    expect(sub.dataset.status).toBe("error");
    expect(sub.textContent).toContain("boom");
    const parallel = within(root).getByRole("listitem", { name: "Parallel group g1" });
    expect(within(parallel).getByRole("listitem", { name: "Loop p2" }).textContent).toContain(
      "selected",
    );
    expect(within(parallel).getByRole("listitem", { name: "Loop p1" }).textContent).not.toContain(
      "selected",
    );
    expect(screen.getByRole("listitem", { name: "Loop next" }).textContent).toContain("running");
    await user.click(screen.getByRole("button", { name: "Messages of loop sub" }));
    expect(onSelectLoop).toHaveBeenCalledWith("sub");
  });

  it("says how a run continues its parent: a regenerate is a rerun, an edit & resend a branch", () => {
    const tag = "2026-11-28T01:20:00.000Z";
    render(
      <LoopTree
        loops={[
          loop("answer", { child_loop_ids: ["again", "edited"] }),
          loop("again", {
            parent_loop_id: "answer",
            started_at: 3000,
            continuation_kind: { type: "rerun", tag },
          }),
          loop("edited", {
            parent_loop_id: "answer",
            started_at: 4000,
            continuation_kind: { type: "branch", tag },
          }),
        ]}
        onSelectLoop={() => undefined}
      />,
    );
    const parent = screen.getByRole("listitem", { name: "Loop answer" });
    expect(within(parent).getByRole("listitem", { name: "Loop again" }).textContent).toContain(
      `rerun · ${tag}`,
    );
    expect(within(parent).getByRole("listitem", { name: "Loop edited" }).textContent).toContain(
      `branch · ${tag}`,
    );
  });

  it("shows each loop's cost, or that its model has no price, and the whole tree's total", () => {
    render(
      <LoopTree
        loops={loops}
        total={{
          input: 500,
          output: 250,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 750,
          cost_usd: 0.0168,
          cost_complete: false,
        }}
        onSelectLoop={vi.fn()}
      />,
    );
    const root = screen.getByRole("listitem", { name: "Loop root" });
    const rootCost = within(root).getAllByTestId("loop-cost")[0];
    expect(rootCost?.textContent).toBe(" · $0.0042");
    const sub = within(root).getByRole("listitem", { name: "Loop sub" });
    expect(within(sub).getByTestId("loop-cost").textContent).toBe(" · no price for this model");
    expect(sub.textContent).not.toContain("$0.00");
    expect(screen.getByTestId("loop-tree-total").textContent).toBe(
      "Whole tree: 5 loops · 750 tokens · $0.02 + tokens without a price",
    );
  });
});
