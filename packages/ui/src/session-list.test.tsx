import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { SessionList } from "./session-list.js";
import { summary } from "./test-support/sessions.js";

const now = new Date("2025-06-10T12:00:00Z");
const sessions = [
  summary("s1", "Fix the parser", {
    state: { type: "AwaitingToolApproval", pending_requests: ["m"], tool_names: ["bash"] },
  }),
  summary("s2", "Write the README", {
    message_count: 1,
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 120_000,
      cost_usd: null,
      cost_complete: false,
    },
  }),
];

describe("SessionList", () => {
  it("shows state, time, message count and tokens, and selects a session", async () => {
    const user = userEvent.setup();
    const onSelect = vi.fn();
    render(<SessionList sessions={sessions} activeSessionId="s2" onSelect={onSelect} now={now} />);
    const first = screen.getByRole("button", { name: /Fix the parser/ });
    expect(first.textContent).toContain("Waiting for your approval");
    expect(first.textContent).toContain("5 min ago");
    expect(first.textContent).toContain("4 messages");
    expect(first.textContent).toContain("1.5k tokens");
    const second = screen.getByRole("button", { name: /Write the README/ });
    expect(second.getAttribute("aria-current")).toBe("page");
    expect(second.textContent).toContain("1 message·");
    // each row's cost, subtle; a model without a price says so, never $0.00
    expect(within(first).getByTestId("session-cost").textContent).toBe("$0.0042");
    expect(within(second).getByTestId("session-cost").textContent).toBe("no price for this model");
    await user.click(first);
    expect(onSelect).toHaveBeenCalledWith("s1");
  });

  it("filters by title", async () => {
    const user = userEvent.setup();
    render(<SessionList sessions={sessions} onSelect={vi.fn()} now={now} />);
    const nav = screen.getByRole("navigation", { name: "Sessions" });
    await user.type(screen.getByRole("searchbox", { name: "Search sessions" }), "readme");
    expect(
      within(nav)
        .getAllByRole("button")
        .map((b) => b.querySelector("span")?.textContent),
    ).toEqual(["Write the README"]);
    await user.type(screen.getByRole("searchbox", { name: "Search sessions" }), "zzz");
    expect(screen.getByText("No session matches “readmezzz”.")).toBeDefined();
  });
});

describe("SessionList message search", () => {
  it("reports the query and lists the messages found, which open at the message", async () => {
    const user = userEvent.setup();
    const onQueryChange = vi.fn();
    const onOpenMessage = vi.fn();
    const { rerender } = render(
      <SessionList
        sessions={sessions}
        onSelect={vi.fn()}
        onQueryChange={onQueryChange}
        now={now}
      />,
    );
    await user.type(screen.getByRole("searchbox", { name: "Search sessions" }), "lexer");
    expect(onQueryChange).toHaveBeenLastCalledWith("lexer");
    rerender(
      <SessionList
        sessions={sessions}
        onSelect={vi.fn()}
        onQueryChange={onQueryChange}
        now={now}
        messageHits={[
          {
            session_id: "s2",
            session_title: "Write the README",
            message_id: "m9",
            role: "assistant",
            message_type: "text",
            created_at: "2025-06-10T11:00:00.000Z",
            snippet: "the lexer splits tokens",
          },
        ]}
        onOpenMessage={onOpenMessage}
      />,
    );
    const found = screen.getByRole("region", { name: "Messages found" });
    expect(found.textContent).toContain("the lexer splits tokens");
    expect(screen.queryByText(/No session matches/)).toBeNull();
    await user.click(within(found).getByRole("button", { name: /lexer/ }));
    expect(onOpenMessage).toHaveBeenCalledWith("s2", "m9");
  });
});

describe("SessionList groups and row actions", () => {
  it("groups the sessions under date headings, in order", () => {
    const local = new Date(2025, 5, 10, 12);
    const dated = (id: string, title: string, at: Date) =>
      summary(id, title, { updated_at: at.toISOString() });
    render(
      <SessionList
        sessions={[
          dated("a", "Today's", new Date(2025, 5, 10, 9)),
          dated("b", "Yesterday's", new Date(2025, 5, 9, 9)),
          dated("c", "This week's", new Date(2025, 5, 5, 9)),
          dated("d", "This month's", new Date(2025, 4, 20, 9)),
          dated("e", "March's", new Date(2025, 2, 3, 9)),
        ]}
        onSelect={vi.fn()}
        now={local}
      />,
    );
    const groups = screen.getAllByRole("region");
    expect(
      groups.map((g) => [
        g.getAttribute("aria-labelledby") && within(g).getByRole("heading").textContent,
        within(g)
          .getAllByRole("button")
          .map((b) => b.querySelector("span")?.textContent),
      ]),
    ).toEqual([
      ["Today", ["Today's"]],
      ["Yesterday", ["Yesterday's"]],
      ["Previous 7 days", ["This week's"]],
      ["Previous 30 days", ["This month's"]],
      ["March 2025", ["March's"]],
    ]);
  });

  it("offers New session and each row's rename, export and delete", async () => {
    const user = userEvent.setup();
    const onNew = vi.fn();
    const actions = { onRename: vi.fn(), onExport: vi.fn(), onDelete: vi.fn() };
    render(
      <SessionList
        sessions={sessions}
        onSelect={vi.fn()}
        now={now}
        onNew={onNew}
        rowActions={actions}
      />,
    );
    await user.click(screen.getByRole("button", { name: "New session" }));
    expect(onNew).toHaveBeenCalledOnce();

    await user.click(screen.getByRole("button", { name: "Actions for “Write the README”" }));
    await user.click(screen.getByRole("menuitem", { name: "Export as JSON" }));
    expect(actions.onExport).toHaveBeenCalledWith("s2", "Write the README", "json");

    await user.click(screen.getByRole("button", { name: "Actions for “Fix the parser”" }));
    await user.click(screen.getByRole("menuitem", { name: "Delete session" }));
    expect(actions.onDelete).toHaveBeenCalledWith("s1", "Fix the parser");

    await user.click(screen.getByRole("button", { name: "Actions for “Fix the parser”" }));
    await user.click(screen.getByRole("menuitem", { name: "Rename…" }));
    const input = screen.getByRole("textbox", { name: "Title" });
    await user.clear(input);
    await user.type(input, "Fix the lexer{Enter}");
    expect(actions.onRename).toHaveBeenCalledWith("s1", "Fix the lexer");
  });

  it("has no row menu or New session button unless given", () => {
    render(<SessionList sessions={sessions} onSelect={vi.fn()} now={now} />);
    expect(screen.queryByRole("button", { name: /^Actions for/ })).toBeNull();
    expect(screen.queryByRole("button", { name: "New session" })).toBeNull();
  });
});
