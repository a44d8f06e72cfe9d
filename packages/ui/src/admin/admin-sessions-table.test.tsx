import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { summary } from "../test-support/sessions.js";
import { AdminSessionsTable } from "./admin-sessions-table.js";

describe("AdminSessionsTable", () => {
  it("lists tokens, cost where known, state and last activity", async () => {
    const user = userEvent.setup();
    const onSelect = vi.fn();
    render(
      <AdminSessionsTable
        sessions={[
          summary("s1", "Parser", { usage: { ...summary("", "").usage, cost_usd: 0.1234 } }),
          summary("s2", "Docs", {
            state: { type: "Paused", reason: "interrupted" },
            usage: { ...summary("", "").usage, cost_usd: null, cost_complete: false },
          }),
        ]}
        onSelect={onSelect}
        now={new Date("2025-06-10T12:00:00Z")}
      />,
    );
    const rows = screen.getAllByRole("row").slice(1);
    expect(
      within(rows[0] as HTMLElement)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual(["Ready", "4", "1.5k", "$0.12", "5 min ago"]);
    // a model without a price: said in words, never $0.00
    expect(within(rows[1] as HTMLElement).getAllByRole("cell")[3]?.textContent).toBe(
      "no price for this model",
    );
    expect(rows[1]?.textContent).toContain("Paused");
    await user.click(screen.getByRole("button", { name: "Docs" }));
    expect(onSelect).toHaveBeenCalledWith("s2");
  });
});
