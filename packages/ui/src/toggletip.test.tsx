import { fireEvent, render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { Toggletip } from "./toggletip.js";

const TEXT = "How much of the context window the next request fills.";

function setup() {
  const user = userEvent.setup();
  render(
    <div>
      <Toggletip label="context usage">{TEXT}</Toggletip>
      <button type="button">elsewhere</button>
    </div>,
  );
  const button = screen.getByRole("button", { name: "About context usage" });
  return { user, button };
}

describe("Toggletip", () => {
  it("has no title tooltip: the text is shown on a click and closes on a second one", async () => {
    const { user, button } = setup();
    expect(button.getAttribute("title")).toBeNull();
    expect(screen.queryByText(TEXT)).toBeNull();
    expect(button.getAttribute("aria-expanded")).toBe("false");
    await user.click(button);
    expect(screen.getByRole("dialog", { name: "context usage" }).textContent).toContain(TEXT);
    expect(button.getAttribute("aria-expanded")).toBe("true");
    await user.click(button);
    expect(screen.queryByText(TEXT)).toBeNull();
  }, 20_000);

  it("opens from the keyboard and closes on Escape, the focus back on the button", async () => {
    const { user, button } = setup();
    await user.tab();
    expect(document.activeElement).toBe(button);
    await user.keyboard("{Enter}");
    expect(screen.getByText(TEXT)).toBeTruthy();
    await user.keyboard("{Escape}");
    expect(screen.queryByText(TEXT)).toBeNull();
    expect(document.activeElement).toBe(button);
    await user.keyboard(" ");
    expect(screen.getByText(TEXT)).toBeTruthy();
  }, 20_000);

  it("closes on a tap outside", async () => {
    const { user, button } = setup();
    await user.click(button);
    expect(screen.getByText(TEXT)).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "elsewhere" }));
    expect(screen.queryByText(TEXT)).toBeNull();
  }, 20_000);

  it("a mouse hover opens it and leaving closes it; a touch does not open it by hovering", () => {
    const { button } = setup();
    fireEvent.pointerEnter(button, { pointerType: "touch" });
    expect(screen.queryByText(TEXT)).toBeNull();
    fireEvent.pointerEnter(button, { pointerType: "mouse" });
    expect(screen.getByText(TEXT)).toBeTruthy();
    // the hover left the focus where it was
    expect(document.activeElement).not.toBe(screen.getByRole("dialog"));
    fireEvent.pointerLeave(button, { pointerType: "mouse" });
    expect(screen.queryByText(TEXT)).toBeNull();
  });

  it("a click on a bubble the hover opened keeps it open after the pointer leaves", async () => {
    const { button } = setup();
    fireEvent.pointerEnter(button, { pointerType: "mouse" });
    fireEvent.click(button);
    fireEvent.pointerLeave(button, { pointerType: "mouse" });
    expect(screen.getByText(TEXT)).toBeTruthy();
  });
});
