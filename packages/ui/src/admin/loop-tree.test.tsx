import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { loops } from "../test-support/loops.js";
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
});
