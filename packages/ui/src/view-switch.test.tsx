import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ViewSwitch } from "./view-switch.js";

describe("ViewSwitch", () => {
  it("reports the chosen view and never deselects both", async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(<ViewSwitch value="optimized" onChange={onChange} />);
    const sees = screen.getByRole("radio", { name: "What the model sees" });
    expect(sees.getAttribute("aria-checked")).toBe("true");
    await user.click(screen.getByRole("radio", { name: "Full history" }));
    expect(onChange).toHaveBeenCalledWith("full");
    await user.click(sees);
    expect(onChange).toHaveBeenCalledTimes(1);
  });
});

describe("ViewSwitch's words (issue #27)", () => {
  it("explains each view in a sentence a newcomer reads, behind a toggletip a tap opens", async () => {
    const user = userEvent.setup();
    render(<ViewSwitch value="optimized" onChange={() => {}} />);
    expect(
      screen.getByRole("radio", { name: "What the model sees" }).getAttribute("title"),
    ).toBeNull();
    await user.click(screen.getByRole("button", { name: "About the transcript views" }));
    const bubble = screen.getByRole("dialog", { name: "the transcript views" });
    expect(bubble.textContent).toMatch(/What the model sees:.*summarized or shortened to fit/);
    expect(bubble.textContent).toMatch(/Full history:.*Every message as it was written/);
  });
});
