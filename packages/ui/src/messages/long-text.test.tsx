import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { collapsedText, LONG_TEXT_LINES, LongText } from "./long-text.js";

describe("LongText", () => {
  it("shows a short text whole, with no toggle", () => {
    render(<LongText text={"one\ntwo"} />);
    expect(screen.getByText(/one/).textContent).toBe("one\ntwo");
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("cuts a long text to its first lines until asked", async () => {
    const text = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
    expect(collapsedText(text)?.split("\n")).toHaveLength(LONG_TEXT_LINES);
    render(<LongText text={text} />);
    const toggle = screen.getByRole("button", { name: /Show all \(40 lines/ });
    expect(screen.queryByText(/line 40/)).toBeNull();
    await userEvent.setup().click(toggle);
    expect(screen.getByText(/line 40/)).toBeTruthy();
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
  });
});
