import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { expandTemplate, FilePicker, templateVariables } from "./file-picker.js";

const files = ["src/a.ts", "src/b.ts", "README.md"];

async function openPicker() {
  const user = userEvent.setup();
  const onPick = vi.fn();
  render(<FilePicker files={files} onPick={onPick} />);
  await user.click(screen.getByRole("button", { name: "Attach file" }));
  return { user, onPick, dialog: screen.getByRole("dialog", { name: "Add a workspace file" }) };
}

describe("FilePicker", () => {
  it("filters paths and picks one with a line range", async () => {
    const { user, onPick } = await openPicker();
    await user.type(screen.getByRole("textbox", { name: "Filter files" }), "src/");
    expect(screen.getAllByRole("option").map((o) => o.textContent)).toEqual([
      "src/a.ts",
      "src/b.ts",
    ]);
    const add = screen.getByRole("button", { name: "Add file" });
    expect(add).toHaveProperty("disabled", true);
    await user.click(screen.getByRole("option", { name: "src/b.ts" }));
    expect(screen.getByRole("option", { name: "src/b.ts" }).getAttribute("aria-selected")).toBe(
      "true",
    );
    await user.type(screen.getByRole("textbox", { name: "Start line" }), "2");
    await user.type(screen.getByRole("textbox", { name: "End line" }), "4");
    await user.click(add);
    expect(onPick).toHaveBeenCalledWith({
      path: "src/b.ts",
      range: { start_line: 2, end_line: 4 },
    });
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("refuses an end line before the start line", async () => {
    const { user, onPick } = await openPicker();
    await user.click(screen.getByRole("option", { name: "README.md" }));
    await user.type(screen.getByRole("textbox", { name: "Start line" }), "9");
    await user.type(screen.getByRole("textbox", { name: "End line" }), "3");
    await user.click(screen.getByRole("button", { name: "Add file" }));
    expect(screen.getByRole("alert").textContent).toBe(
      "End line must not be before the start line",
    );
    expect(screen.getByRole("textbox", { name: "End line" }).getAttribute("aria-invalid")).toBe(
      "true",
    );
    expect(onPick).not.toHaveBeenCalled();
    await user.clear(screen.getByRole("textbox", { name: "End line" }));
    await user.click(screen.getByRole("button", { name: "Add file" }));
    expect(onPick).toHaveBeenCalledWith({
      path: "README.md",
      range: { start_line: 9, end_line: 9 },
    });
  });

  it("picks a whole file without a range", async () => {
    const { user, onPick } = await openPicker();
    await user.click(screen.getByRole("option", { name: "src/a.ts" }));
    await user.click(screen.getByRole("button", { name: "Add file" }));
    expect(onPick).toHaveBeenCalledWith({ path: "src/a.ts" });
  });

  it("reads a URI template's variables and expands them (simple, reserved, query)", () => {
    expect(templateVariables("demo://resource/dynamic/text/{resourceId}")).toEqual(["resourceId"]);
    expect(templateVariables("x://{a}/{+path}{?q,lang}")).toEqual(["a", "path", "q", "lang"]);
    expect(expandTemplate("demo://text/{id}", { id: "a b/c" })).toBe("demo://text/a%20b%2Fc");
    expect(expandTemplate("x://{+path}", { path: "a b/c" })).toBe("x://a%20b/c");
    expect(expandTemplate("x://s{?q,lang}", { q: "cats", lang: "" })).toBe("x://s?q=cats");
  });
});
