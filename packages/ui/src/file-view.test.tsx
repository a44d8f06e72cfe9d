import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { FileView } from "./file-view.js";

describe("FileView", { timeout: 30_000 }, () => {
  it("shows the file with line numbers and marks the target line", async () => {
    const onClose = vi.fn();
    render(
      <FileView
        target={{ path: "src/users.ts", line: 2 }}
        file={{ content: "first\nsecond\nthird\n", total_lines: 3, truncated: false }}
        onClose={onClose}
      />,
    );
    expect(screen.getByRole("dialog", { name: "src/users.ts:2" })).toBeDefined();
    const list = screen.getByRole("list", { name: "Contents of src/users.ts" });
    expect(within(list).getAllByRole("listitem")).toHaveLength(3);
    const current = list.querySelector('[aria-current="location"]');
    expect(current?.textContent).toBe("2second");
    await userEvent.click(screen.getByRole("button", { name: "Close dialog" }));
    expect(onClose).toHaveBeenCalled();
  });

  it("says why a file cannot be shown, and is closed without a target", () => {
    const { rerender } = render(
      <FileView
        target={{ path: "gone.ts", line: 1 }}
        error="gone.ts does not exist"
        onClose={() => {}}
      />,
    );
    expect(screen.getByRole("alert").textContent).toBe("gone.ts does not exist");
    rerender(<FileView target={undefined} onClose={() => {}} />);
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
