import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { OutgoingCard } from "./outgoing-card.js";

describe("OutgoingCard", () => {
  it("shows the text at once, marked as sending, with no actions", () => {
    render(<OutgoingCard message={{ key: "k1", text: "list the files", status: "sending" }} />);
    const card = screen.getByRole("article", { name: "You message" });
    expect(card.dataset.status).toBe("sending");
    expect(card.textContent).toContain("Sending…");
    expect(card.textContent).toContain("list the files");
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("keeps a refused message with the reason, Retry and Discard", async () => {
    const user = userEvent.setup();
    const onRetry = vi.fn();
    const onDiscard = vi.fn();
    render(
      <OutgoingCard
        message={{ key: "k2", text: "hello", status: "failed", error: "500 boom" }}
        onRetry={onRetry}
        onDiscard={onDiscard}
      />,
    );
    expect(screen.getByRole("alert").textContent).toBe("Not sent · 500 boom");
    await user.click(screen.getByRole("button", { name: "Retry" }));
    expect(onRetry).toHaveBeenCalledWith("k2");
    await user.click(screen.getByRole("button", { name: "Discard" }));
    expect(onDiscard).toHaveBeenCalledWith("k2");
  });

  it("holds a message while the connection is down: it says so, with Discard and no Retry", async () => {
    const onDiscard = vi.fn();
    render(
      <OutgoingCard
        message={{ key: "k3", text: "later", status: "held" }}
        onRetry={() => {}}
        onDiscard={onDiscard}
      />,
    );
    expect(screen.getByRole("status").textContent).toContain("Waiting for the connection");
    expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
    await userEvent.setup().click(screen.getByRole("button", { name: "Discard" }));
    expect(onDiscard).toHaveBeenCalledWith("k3");
  });
});

describe("OutgoingCard's files (issue #27)", () => {
  it("lists the files going with a held text by name and size", () => {
    render(
      <OutgoingCard
        message={{
          key: "k4",
          text: "what do these say?",
          status: "held",
          attachments: [
            { name: "notes.md", size: 1_536 },
            { name: "pixel.png", size: 68 },
          ],
        }}
      />,
    );
    const files = screen.getByRole("list", { name: "Files with this message" });
    const items = [...files.querySelectorAll("li")].map((li) => li.textContent);
    expect(items).toEqual(["notes.md1.5 KB", "pixel.png68 B"]);
  });

  it("shows no file list for a text alone", () => {
    render(
      <OutgoingCard message={{ key: "k5", text: "hi", status: "sending", attachments: [] }} />,
    );
    expect(screen.queryByRole("list")).toBeNull();
  });
});
