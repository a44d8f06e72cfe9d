import type { LinkShare, SharedPerson } from "@arbor/core/browser";
import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { SessionMenu } from "./session-menu.js";
import { ShareDialog } from "./share-dialog.js";

const ben: SharedPerson = {
  user_id: "u-ben",
  name: "Ben",
  email: "ben@people.test",
  role: "viewer",
  granted_by: { id: "u-ana", name: "Ana" },
  granted_at: "2026-11-27T10:00:00.000Z",
};
const link: LinkShare = {
  id: "l-1",
  branch_id: "b-1",
  branch_name: "main",
  created_by: { id: "u-ana", name: "Ana" },
  created_at: "2026-11-27T11:00:00.000Z",
  expires_at: null,
  revoked_at: null,
};
const revoked: LinkShare = { ...link, id: "l-2", revoked_at: "2026-11-27T12:00:00.000Z" };

function setup(overrides: Partial<Parameters<typeof ShareDialog>[0]> = {}) {
  const user = userEvent.setup();
  const props = {
    open: true,
    onOpenChange: vi.fn(),
    people: [ben],
    links: [link, revoked],
    branchName: "main",
    onAddPerson: vi.fn(async () => undefined),
    onRemovePerson: vi.fn(),
    onCreateLink: vi.fn(async () => "http://arbor.test/share/arbor_link_secret"),
    onRevokeLink: vi.fn(),
    ...overrides,
  };
  render(<ShareDialog {...props} />);
  return { user, dialog: screen.getByRole("dialog", { name: "Share session" }), ...props };
}

describe("ShareDialog", () => {
  it("lists people and open links with who made them, and revokes each", async () => {
    const { user, dialog, onRemovePerson, onRevokeLink } = setup();
    expect(within(dialog).getByText("Ben")).toBeTruthy();
    expect(within(dialog).getByText(/viewer · shared by Ana/)).toBeTruthy();
    // the revoked link is not listed
    expect(within(dialog).getAllByText(/made by Ana/)).toHaveLength(1);
    await user.click(within(dialog).getByRole("button", { name: "Revoke Ben's access" }));
    expect(onRemovePerson).toHaveBeenCalledWith("u-ben");
    await user.click(within(dialog).getByRole("button", { name: "Revoke the link to main" }));
    expect(onRevokeLink).toHaveBeenCalledWith("l-1");
  }, 20_000);

  it("adds a person by email with a role, and shows the API's problem", async () => {
    const onAddPerson = vi
      .fn<(email: string, role: string) => Promise<void>>()
      .mockRejectedValueOnce(new Error("no person of this install has it"))
      .mockResolvedValueOnce(undefined);
    const { user, dialog } = setup({ onAddPerson });
    await user.type(within(dialog).getByLabelText("Email"), "nobody@people.test");
    await user.selectOptions(within(dialog).getByLabelText("Role"), "collaborator");
    await user.click(within(dialog).getByRole("button", { name: "Share" }));
    expect(onAddPerson).toHaveBeenCalledWith("nobody@people.test", "collaborator");
    expect((await within(dialog).findByRole("alert")).textContent).toContain("no person");
    await user.click(within(dialog).getByRole("button", { name: "Share" }));
    expect(onAddPerson).toHaveBeenCalledTimes(2);
    expect(within(dialog).queryByRole("alert")).toBeNull();
  }, 20_000);

  it("creates a link to the current branch and shows its address once, with Copy", async () => {
    const { user, dialog, onCreateLink } = setup();
    expect(within(dialog).queryByLabelText("New link")).toBeNull();
    await user.click(within(dialog).getByRole("button", { name: "Create link to main" }));
    expect(onCreateLink).toHaveBeenCalledWith(undefined);
    const shown = await within(dialog).findByLabelText("New link");
    expect(shown).toHaveProperty("value", "http://arbor.test/share/arbor_link_secret");
    expect(within(dialog).getByRole("button", { name: "Copy link" })).toBeTruthy();
  }, 20_000);

  it("passes an expiry as an ISO time", async () => {
    const { user, dialog, onCreateLink } = setup();
    await user.type(within(dialog).getByLabelText("Expires (optional)"), "2030-01-02T03:04");
    await user.click(within(dialog).getByRole("button", { name: "Create link to main" }));
    expect(onCreateLink).toHaveBeenCalledWith(new Date("2030-01-02T03:04").toISOString());
  }, 20_000);
});

describe("SessionMenu's Share…", () => {
  it("is offered only with onShare (the session's owner)", async () => {
    const user = userEvent.setup();
    const onShare = vi.fn();
    const base = { title: "t", onRename: vi.fn(), onExport: vi.fn(), onDelete: vi.fn() };
    const { unmount } = render(<SessionMenu {...base} />);
    await user.click(screen.getByRole("button", { name: "Session actions" }));
    expect(screen.queryByRole("menuitem", { name: "Share…" })).toBeNull();
    unmount();
    render(<SessionMenu {...base} onShare={onShare} />);
    await user.click(screen.getByRole("button", { name: "Session actions" }));
    await user.click(screen.getByRole("menuitem", { name: "Share…" }));
    expect(onShare).toHaveBeenCalledOnce();
  }, 20_000);
});
