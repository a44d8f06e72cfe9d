import type { AuditAction, AuditEntry } from "@arbor/core/browser";
import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import {
  AuditFilters,
  AuditLogTable,
  AuditPager,
  AuditVerifyResult,
  NO_AUDIT_FILTERS,
} from "./audit-log.js";

function entry(sequence: number, over: Partial<AuditEntry> = {}): AuditEntry {
  return {
    sequence,
    time: "2026-11-27T10:00:00.123Z",
    actor_id: "u-ana",
    actor_name: "Ana",
    action: "tool_approved",
    target: "session:s1",
    address: "10.0.0.7",
    detail: { tool: "bash", tool_call_id: "c1" },
    prev_hash: "0".repeat(64),
    hash: "a".repeat(64),
    ...over,
  };
}

const ACTIONS: AuditAction[] = ["tool_approved", "tool_denied", "sign_in_failed"];

describe("AuditLogTable", () => {
  it("shows each row's person, action, target, address and detail; a person filters", async () => {
    const user = userEvent.setup();
    const onSelectActor = vi.fn();
    render(
      <AuditLogTable
        entries={[
          entry(3),
          entry(2, {
            actor_id: null,
            actor_name: null,
            address: null,
            action: "mcp_config_loaded",
            target: "mcp_server:files",
            detail: {},
          }),
          entry(1, { actor_id: null, actor_name: null, action: "sign_in_failed" }),
        ]}
        meanings={{ tool_approved: "a person approved a tool call" }}
        onSelectActor={onSelectActor}
      />,
    );
    const rows = screen.getAllByRole("row").slice(1);
    expect(
      within(rows[0] as HTMLElement)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual([
      "3",
      "2026-11-27 10:00:00Z",
      "Ana",
      "Tool approved",
      "session:s1",
      "10.0.0.7",
      "tool: bash · tool_call_id: c1",
    ]);
    expect(
      within(rows[0] as HTMLElement)
        .getByText("Tool approved")
        .getAttribute("title"),
    ).toBe("a person approved a tool call");
    // no actor: the system when there is no address, else an anonymous caller
    expect(rows[1]?.textContent).toContain("System");
    expect(rows[1]?.textContent).toContain("—");
    expect(rows[2]?.textContent).toContain("Anonymous");
    await user.click(screen.getByRole("button", { name: "Ana" }));
    expect(onSelectActor).toHaveBeenCalledWith("u-ana");
  });

  it("says so when nothing matches", () => {
    render(<AuditLogTable entries={[]} />);
    expect(screen.getByText("No entries match.")).toBeTruthy();
  });
});

describe("AuditFilters", () => {
  it("applies person, action and time range together, and clears them", async () => {
    const user = userEvent.setup();
    const onApply = vi.fn();
    render(<AuditFilters value={NO_AUDIT_FILTERS} actions={ACTIONS} onApply={onApply} />);
    const options = within(screen.getByLabelText("Action")).getAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual([
      "Any action",
      "Tool approved",
      "Tool denied",
      "Sign in failed",
    ]);
    await user.type(screen.getByLabelText("Person (id)"), " u-ben ");
    await user.selectOptions(screen.getByLabelText("Action"), "tool_denied");
    await user.type(screen.getByLabelText("From"), "2026-11-01T08:30");
    await user.type(screen.getByLabelText("Until"), "2026-11-02T08:30");
    await user.click(screen.getByRole("button", { name: "Apply" }));
    expect(onApply).toHaveBeenLastCalledWith({
      actor: "u-ben",
      action: "tool_denied",
      since: "2026-11-01T08:30",
      until: "2026-11-02T08:30",
    });
    await user.click(screen.getByRole("button", { name: "Clear" }));
    expect(onApply).toHaveBeenLastCalledWith(NO_AUDIT_FILTERS);
  });

  it("shows the filters it is given (a person picked in the table)", () => {
    render(
      <AuditFilters
        value={{ ...NO_AUDIT_FILTERS, actor: "u-ana" }}
        actions={ACTIONS}
        onApply={() => {}}
      />,
    );
    expect((screen.getByLabelText("Person (id)") as HTMLInputElement).value).toBe("u-ana");
  });
});

describe("AuditVerifyResult", () => {
  it("reports an intact chain with its head", () => {
    render(
      <AuditVerifyResult
        result={{ ok: true, rows: 12, head: { sequence: 12, hash: "f".repeat(64) } }}
      />,
    );
    expect(screen.getByRole("status").textContent).toBe(
      `Chain intact: 12 rows checked (last row #12, hash ${"f".repeat(16)}…).`,
    );
  });

  it("reports the first bad row and why, as an alert", () => {
    render(
      <AuditVerifyResult
        result={{ ok: false, rows: 9, first_bad: { sequence: 4, reason: "gap" }, head: null }}
      />,
    );
    const alert = screen.getByRole("alert").textContent ?? "";
    expect(alert).toContain("Chain broken at row #4");
    expect(alert).toContain("rows before it are missing (deleted)");
  });
});

describe("AuditPager", () => {
  it("pages by cursor, each way only when there is a page", async () => {
    const user = userEvent.setup();
    const onOlder = vi.fn();
    const onNewer = vi.fn();
    render(<AuditPager hasNewer={false} hasOlder onNewer={onNewer} onOlder={onOlder} />);
    expect((screen.getByRole("button", { name: "← Newer" }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    await user.click(screen.getByRole("button", { name: "Older →" }));
    expect(onOlder).toHaveBeenCalledOnce();
    expect(onNewer).not.toHaveBeenCalled();
  });
});
