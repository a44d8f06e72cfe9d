import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { Skeleton } from "./skeleton.js";

describe("Skeleton", () => {
  it("is one busy status named for what loads, with hidden shapes", () => {
    const { container } = render(<Skeleton label="Loading the conversation" rows={4} />);
    const status = screen.getByRole("status", { name: "Loading the conversation" });
    expect(status.getAttribute("aria-busy")).toBe("true");
    expect(container.querySelectorAll("[aria-hidden='true']")).toHaveLength(4);
  });

  it("draws lines for lists", () => {
    render(<Skeleton label="Loading sessions" shape="lines" rows={2} />);
    expect(screen.getByRole("status").dataset.skeleton).toBe("lines");
  });
});
