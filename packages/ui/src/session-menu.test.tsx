import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { SessionMenu } from "./session-menu.js";

function setup() {
  const user = userEvent.setup();
  const props = { onRename: vi.fn(), onExport: vi.fn(), onDelete: vi.fn() };
  render(<SessionMenu title="Old title" {...props} />);
  const open = () => user.click(screen.getByRole("button", { name: "Session actions" }));
  return { user, open, ...props };
}

describe("SessionMenu", () => {
  it("renames with the trimmed new title", async () => {
    const { user, open, onRename } = setup();
    await open();
    await user.click(screen.getByRole("menuitem", { name: "Rename…" }));
    const input = screen.getByRole("textbox", { name: "Title" });
    expect(input).toHaveProperty("value", "Old title");
    await user.clear(input);
    expect(screen.getByRole("button", { name: "Rename" })).toHaveProperty("disabled", true);
    await user.type(input, "  New title ");
    await user.click(screen.getByRole("button", { name: "Rename" }));
    expect(onRename).toHaveBeenCalledWith("New title");
    expect(screen.queryByRole("dialog")).toBeNull();
  }, 20_000);

  it("exports in either format and deletes", async () => {
    const { user, open, onExport, onDelete } = setup();
    await open();
    await user.click(screen.getByRole("menuitem", { name: "Export as Markdown" }));
    expect(onExport).toHaveBeenCalledWith("markdown");
    await open();
    await user.click(screen.getByRole("menuitem", { name: "Export as JSON" }));
    expect(onExport).toHaveBeenCalledWith("json");
    await open();
    await user.click(screen.getByRole("menuitem", { name: "Delete session" }));
    expect(onDelete).toHaveBeenCalledOnce();
  });
});
