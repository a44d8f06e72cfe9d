import type { ToolCallRequest } from "@arbor/core/browser";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ApprovalRulesFields } from "../approval-rules-settings.js";
import { ApprovalActions } from "./approval-actions.js";

const bashCall = (over: Partial<ToolCallRequest> = {}): ToolCallRequest => ({
  id: "call-1",
  name: "bash",
  arguments: { command: "npm test" },
  approval: "pending",
  suggested_rules: { exact: "Bash(npm test)", prefix: "Bash(npm test:*)" },
  ...over,
});

describe("ApprovalActions", () => {
  it("offers both scopes for a bash command and sends the chosen rule", async () => {
    const user = userEvent.setup();
    const onDecide = vi.fn();
    render(<ApprovalActions call={bashCall()} decided={false} onDecide={onDecide} />);
    expect(screen.queryByRole("button", { name: "Always allow this tool" })).toBeNull();
    await user.click(
      screen.getByRole("button", { name: "Always allow commands starting with npm test" }),
    );
    expect(onDecide).toHaveBeenLastCalledWith({
      tool_call_id: "call-1",
      decision: "approve",
      rule: "Bash(npm test:*)",
    });
    await user.click(screen.getByRole("button", { name: "Always allow the command npm test" }));
    expect(onDecide).toHaveBeenLastCalledWith({
      tool_call_id: "call-1",
      decision: "approve",
      rule: "Bash(npm test)",
    });
  });

  it("offers only the exact command when the server suggests no prefix", () => {
    render(
      <ApprovalActions
        call={bashCall({
          arguments: { command: "npm test && rm -rf /" },
          suggested_rules: { exact: "Bash(npm test && rm -rf /)" },
        })}
        decided={false}
        onDecide={vi.fn()}
      />,
    );
    expect(screen.getAllByRole("button", { name: /^Always allow/ })).toHaveLength(1);
  });

  it("keeps 'Always allow this tool' for other tools", async () => {
    const user = userEvent.setup();
    const onDecide = vi.fn();
    render(
      <ApprovalActions
        call={{ id: "c", name: "write_file", arguments: {}, approval: "pending" }}
        decided={false}
        onDecide={onDecide}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Always allow this tool" }));
    expect(onDecide).toHaveBeenLastCalledWith({
      tool_call_id: "c",
      decision: "approve",
      remember: true,
    });
  });

  it("denies with the reason typed, and plainly without one", async () => {
    const user = userEvent.setup();
    const onDecide = vi.fn();
    render(<ApprovalActions call={bashCall()} decided={false} onDecide={onDecide} />);
    await user.click(screen.getByRole("button", { name: "Deny with a reason…" }));
    const send = screen.getByRole("button", { name: "Deny with this reason" });
    expect(send).toHaveProperty("disabled", true);
    await user.type(screen.getByRole("textbox", { name: /Why not\?/ }), "  use pnpm  ");
    await user.click(send);
    expect(onDecide).toHaveBeenLastCalledWith({
      tool_call_id: "call-1",
      decision: "deny",
      reason: "use pnpm",
    });
    await user.click(screen.getByRole("button", { name: "Deny" }));
    expect(onDecide).toHaveBeenCalledTimes(2);
  });
});

describe("ApprovalRulesFields", () => {
  it("shows each rule with what it means and removes it", async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(
      <ApprovalRulesFields
        draft={{ approveReadOnly: true, allowRules: ["Bash(npm test:*)", "Bash(git status)"] }}
        onChange={onChange}
      />,
    );
    expect(screen.getByText("commands starting with npm test")).toBeDefined();
    expect(screen.getByText("exactly the command git status")).toBeDefined();
    await user.click(screen.getByRole("button", { name: "Remove rule Bash(npm test:*)" }));
    expect(onChange).toHaveBeenLastCalledWith({
      approveReadOnly: true,
      allowRules: ["Bash(git status)"],
    });
    await user.click(screen.getByRole("checkbox", { name: "Run read-only tools without asking" }));
    expect(onChange).toHaveBeenLastCalledWith({
      approveReadOnly: false,
      allowRules: ["Bash(npm test:*)", "Bash(git status)"],
    });
  });
});
