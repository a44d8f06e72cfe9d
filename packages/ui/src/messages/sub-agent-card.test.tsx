import type { BodyOf } from "@arbor/core/browser";
import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ToolRequestCard } from "./tool-request-card.js";

const request: BodyOf<"tool_request"> = {
  message_type: "tool_request",
  text: "",
  thinking: [],
  calls: [
    { id: "c1", name: "researcher", arguments: { task: "find it" }, approval: "auto_approved" },
  ],
};

describe("a sub-agent call's card", () => {
  it("shows the running child's steps and streamed text, open", () => {
    render(
      <ToolRequestCard
        body={request}
        running
        subAgents={{
          c1: {
            loop_id: "s.anthropic.m.2",
            text: "Looking at notes",
            progress: ['read_file {"path":"notes.txt"}'],
            status: "running",
            turns: 0,
            usage: undefined,
          },
        }}
      />,
    );
    const card = screen.getByTestId("subagent-card") as HTMLDetailsElement;
    expect(card.open).toBe(true);
    expect(card.dataset.status).toBe("running");
    expect(card.textContent).toContain("Sub-agent researcher");
    expect(card.textContent).toContain('→ read_file {"path":"notes.txt"}');
    expect(card.textContent).toContain("Looking at notes");
  });

  it("after a reload, shows the stored result's status, turns and tokens, collapsed", () => {
    const result: BodyOf<"tool_result"> = {
      message_type: "tool_result",
      request_id: "r1",
      tool_call_id: "c1",
      tool_name: "researcher",
      content: [{ type: "text", text: "Fact: 42." }],
      status: "success",
      details: {
        type: "subagent",
        kind: "ended",
        agent: "researcher",
        loop_id: "s.anthropic.m.2",
        status: "completed",
        turns: 2,
        usage: { input: 300, output: 30, cacheRead: 0, cacheWrite: 0, totalTokens: 330 },
        model: "m",
      },
    };
    render(<ToolRequestCard body={request} results={new Map([["c1", result]])} />);
    const card = screen.getByTestId("subagent-card") as HTMLDetailsElement;
    expect(card.open).toBe(false);
    expect(card.textContent).toContain("done");
    expect(card.textContent).toContain("2 turns · 330 tokens");
  });

  it("shows a child's call that waits for a person with Approve / Deny while it runs", async () => {
    const onNestedDecisions = vi.fn();
    const view = (status: "pending_approval" | "approved") => ({
      c1: {
        loop_id: "s.anthropic.m.2",
        text: "",
        progress: [],
        status: "running" as const,
        turns: 0,
        usage: undefined,
        approvals: [
          {
            call_id: "w1",
            call_name: "write_note",
            arguments: { text: "x" },
            status,
            cancelled: false,
          },
        ],
      },
    });
    const { rerender } = render(
      <ToolRequestCard
        body={request}
        running
        subAgents={view("pending_approval")}
        onNestedDecisions={onNestedDecisions}
      />,
    );
    const approvals = screen.getByRole("region", { name: "Approvals of researcher" });
    const call = within(approvals).getByRole("listitem", { name: "Tool call write_note" });
    expect(call.getAttribute("data-approval")).toBe("pending");
    await userEvent.click(within(call).getByRole("button", { name: "Deny" }));
    expect(onNestedDecisions).toHaveBeenCalledWith([{ tool_call_id: "w1", decision: "deny" }]);
    rerender(
      <ToolRequestCard
        body={request}
        running
        subAgents={view("approved")}
        onNestedDecisions={onNestedDecisions}
      />,
    );
    const decided = screen.getByRole("listitem", { name: "Tool call write_note" });
    expect(decided.getAttribute("data-approval")).toBe("approved");
    expect(within(decided).queryByRole("button", { name: "Approve" })).toBeNull();
  });
});
