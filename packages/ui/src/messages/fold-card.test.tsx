import type { BodyOf } from "@arbor/core/browser";
import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { msg, text } from "../test-support/messages.js";
import { FoldCard, type FoldCardFold } from "./fold-card.js";

function fold(overrides: Partial<FoldCardFold> = {}): FoldCardFold {
  return {
    fold_id: "fold-1",
    parent_fold_id: null,
    depth: 1,
    description: "read the notes",
    budget: 8192,
    tokens_used: 1234,
    status: "returned",
    reason: null,
    warned: false,
    message: "first word: alpha",
    tool_call_id: "call-1",
    steps: [],
    ...overrides,
  };
}

const request = (id: string, name: string, args: Record<string, unknown>) =>
  msg({
    message_type: "tool_request",
    text: "",
    thinking: [],
    calls: [{ id, name, arguments: args, approval: "auto_approved" }],
  });

const result = (requestId: string, callId: string, name: string, output: string) =>
  msg(
    {
      message_type: "tool_result",
      request_id: requestId,
      tool_call_id: callId,
      tool_name: name,
      content: [{ type: "text", text: output }],
      status: "success",
    },
    { role: "tool" },
  );

describe("FoldCard", () => {
  it("shows the description, status, tokens of the budget and the return message", () => {
    render(<FoldCard fold={fold()} />);
    const card = screen.getByRole("region", { name: "Fold: read the notes" });
    expect(within(card).getByText("Returned")).toBeDefined();
    expect(within(card).getByText("1.2k / 8.2k tokens")).toBeDefined();
    expect(
      within(card).getByRole("meter", { name: "Fold budget used" }).getAttribute("aria-valuenow"),
    ).toBe("1234");
    expect(within(card).getByText("first word: alpha")).toBeDefined();
  });

  it("names why a fold was forced", () => {
    render(
      <FoldCard
        fold={fold({ status: "forced", reason: "budget", tokens_used: 9000, warned: true })}
      />,
    );
    expect(screen.getByText("Forced: budget spent")).toBeDefined();
  });

  it("keeps its steps collapsed until asked, with each call's result in its card", async () => {
    const read = request("r1", "read_file", { path: "notes.txt" });
    const steps = [
      text("Purpose: read the notes", { role: "user" }),
      read,
      result(read.id, "r1", "read_file", "alpha beta gamma"),
    ];
    render(<FoldCard fold={fold({ steps })} />);
    expect(screen.queryByRole("listitem", { name: "Tool call read_file" })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Steps of fold read the notes" }));
    const call = screen.getByRole("listitem", { name: "Tool call read_file" });
    // the result is in the call's own card, not a separate one
    expect(call.getAttribute("data-result")).toBe("success");
    // the fold's first message is the parent model's prompt, not the user's
    expect(screen.getByRole("figure", { name: "Fold prompt" }).textContent).toContain(
      "Purpose: read the notes",
    );
    expect(screen.queryByRole("article", { name: "You message" })).toBeNull();
    expect(screen.getAllByRole("article", { name: "Assistant message" })).toHaveLength(1);
    expect(screen.getAllByRole("listitem", { name: /^Tool call/ })).toHaveLength(1);
  });

  it("nests the card of a fold opened by a branch among its steps", async () => {
    const branch = request("b1", "branch", { description: "deeper", prompt: "go" });
    const parent = fold({ steps: [branch] });
    const child = fold({
      fold_id: "fold-2",
      parent_fold_id: "fold-1",
      depth: 2,
      description: "deeper",
      status: "running",
      message: null,
      tool_call_id: "b1",
    });
    render(<FoldCard fold={parent} folds={[parent, child]} />);
    await userEvent.click(screen.getByRole("button", { name: "Steps of fold read the notes" }));
    const nested = screen.getByRole("region", { name: "Fold: deeper" });
    expect(within(nested).getByText("Running")).toBeDefined();
    expect(within(nested).getByText("Fold · depth 2")).toBeDefined();
  });

  it("shows a call that waits for a person with Approve / Deny while the fold runs", async () => {
    const writeCall = (approval: "pending" | "approved"): BodyOf<"tool_request"> => ({
      message_type: "tool_request",
      text: "",
      thinking: [],
      calls: [{ id: "w1", name: "write_file", arguments: { path: "out.txt" }, approval }],
    });
    const write = msg(writeCall("pending"));
    const steps = [text("Purpose: write", { role: "user" }), write];
    const onToolDecisions = vi.fn();
    const { rerender } = render(
      <FoldCard
        fold={fold({ status: "running", message: null, steps })}
        onToolDecisions={onToolDecisions}
      />,
    );
    // not hidden in the collapsed steps
    const waiting = screen.getByRole("region", {
      name: "Waiting for approval in fold read the notes",
    });
    const call = within(waiting).getByRole("listitem", { name: "Tool call write_file" });
    expect(call.getAttribute("data-approval")).toBe("pending");
    await userEvent.click(within(call).getByRole("button", { name: "Approve" }));
    expect(onToolDecisions).toHaveBeenCalledWith([{ tool_call_id: "w1", decision: "approve" }]);

    // decided: back among the steps, with its state, and no buttons
    const decided = msg(writeCall("approved"), { id: write.id });
    rerender(
      <FoldCard
        fold={fold({ status: "running", message: null, steps: [steps[0]!, decided] })}
        onToolDecisions={onToolDecisions}
      />,
    );
    expect(screen.queryByRole("region", { name: /Waiting for approval/ })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Steps of fold read the notes" }));
    const row = screen.getByRole("listitem", { name: "Tool call write_file" });
    expect(row.getAttribute("data-approval")).toBe("approved");
    expect(within(row).queryByRole("button", { name: "Approve" })).toBeNull();
  });

  it("offers no decision once the fold has ended", async () => {
    const write = msg({
      message_type: "tool_request",
      text: "",
      thinking: [],
      calls: [{ id: "w2", name: "write_file", arguments: {}, approval: "pending" }],
    });
    render(
      <FoldCard
        fold={fold({ status: "forced", reason: "crash", steps: [write] })}
        onToolDecisions={vi.fn()}
      />,
    );
    await userEvent.click(screen.getByRole("button", { name: "Steps of fold read the notes" }));
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
  });
});
