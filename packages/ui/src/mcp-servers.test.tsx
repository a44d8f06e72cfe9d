import type { McpServerView } from "@arbor/core/browser";
import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { McpServerList } from "./mcp-servers.js";
import { mcpToolOrigin } from "./messages/mcp-origin.js";

const empty = { tools: [], resources: [], resource_templates: [], prompts: [] };
const servers: McpServerView[] = [
  {
    name: "everything",
    transport: "stdio",
    status: "connected",
    ...empty,
    tools: [{ name: "echo", model_name: "mcp__everything__echo", description: "Echoes" }],
  },
  {
    name: "ghost",
    transport: "http",
    status: "failed",
    error: "spawn ghost ENOENT",
    ...empty,
  },
  { name: "off", transport: "stdio", status: "disabled", ...empty },
];

describe("McpServerList", () => {
  it("turns a server added in the settings off and removes it; a file's server has no such controls", async () => {
    const user = userEvent.setup();
    const onSetEnabled = vi.fn();
    const onRemove = vi.fn();
    const managed: McpServerView[] = [
      { ...(servers[0] as McpServerView), managed: true },
      servers[1] as McpServerView,
    ];
    render(
      <McpServerList
        servers={managed}
        onReconnect={vi.fn()}
        onSetEnabled={onSetEnabled}
        onRemove={onRemove}
      />,
    );
    const toggle = screen.getByRole("checkbox", { name: "Enabled everything" });
    expect((toggle as HTMLInputElement).checked).toBe(true);
    await user.click(toggle);
    expect(onSetEnabled).toHaveBeenCalledWith("everything", false);
    await user.click(screen.getByRole("button", { name: "Remove everything" }));
    expect(onRemove).toHaveBeenCalledWith("everything");
    expect(screen.queryByRole("checkbox", { name: "Enabled ghost" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Remove ghost" })).toBeNull();
  });

  it("a member's view: who added each server of the settings, and no Reconnect, switch or Remove", () => {
    const listed: McpServerView[] = [
      {
        ...(servers[0] as McpServerView),
        managed: true,
        added_by: { id: "p1", name: "Ada Admin" },
      },
      { ...(servers[1] as McpServerView), managed: true },
      servers[2] as McpServerView,
    ];
    render(<McpServerList servers={listed} />);
    const items = screen.getAllByTestId("mcp-server");
    expect(within(items[0] as HTMLElement).getByTestId("mcp-added").textContent).toBe(
      "added by Ada Admin",
    );
    // brought over from an older version's file: nobody to name
    expect(within(items[1] as HTMLElement).getByTestId("mcp-added").textContent).toBe(
      "added in the settings",
    );
    expect(within(items[2] as HTMLElement).queryByTestId("mcp-added")).toBeNull();
    expect(screen.queryByRole("button")).toBeNull();
    expect(screen.queryByRole("checkbox")).toBeNull();
  });

  it("adds a local server with its arguments, one per line, and shows the server's refusal", async () => {
    const user = userEvent.setup();
    const onAdd = vi
      .fn()
      .mockResolvedValueOnce("command: not found")
      .mockResolvedValueOnce(undefined);
    render(<McpServerList servers={[]} onReconnect={vi.fn()} onAdd={onAdd} />);
    await user.type(screen.getByRole("textbox", { name: "Server name" }), "everything");
    await user.type(screen.getByRole("textbox", { name: "Command" }), "node");
    await user.type(
      screen.getByRole("textbox", { name: "Arguments (one per line)" }),
      "srv.js{enter}stdio",
    );
    await user.click(screen.getByRole("button", { name: "Add server" }));
    expect(onAdd).toHaveBeenCalledWith({
      name: "everything",
      command: "node",
      args: ["srv.js", "stdio"],
    });
    expect((await screen.findByRole("alert")).textContent).toBe("command: not found");
    await user.click(screen.getByRole("button", { name: "Add server" }));
    expect(await screen.findByRole("textbox", { name: "Server name" })).toHaveProperty("value", "");
    await user.click(screen.getByRole("radio", { name: "Remote (a URL)" }));
    await user.type(screen.getByRole("textbox", { name: "Server name" }), "remote");
    await user.type(screen.getByRole("textbox", { name: "URL" }), "https://example.com/mcp{enter}");
    expect(onAdd).toHaveBeenLastCalledWith({ name: "remote", url: "https://example.com/mcp" });
  }, 20_000);

  it("shows each server's status, error and tools, and a reconnect button", async () => {
    const user = userEvent.setup();
    const onReconnect = vi.fn();
    render(<McpServerList servers={servers} onReconnect={onReconnect} />);
    const items = screen.getAllByTestId("mcp-server");
    expect(items.map((item) => item.dataset.status)).toEqual(["connected", "failed", "disabled"]);
    const ghost = items[1] as HTMLElement;
    expect(within(ghost).getByTestId("mcp-error").textContent).toBe("spawn ghost ENOENT");
    expect(within(items[0] as HTMLElement).getByText("mcp__everything__echo")).toBeTruthy();
    expect(within(items[2] as HTMLElement).queryByRole("button")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Reconnect ghost" }));
    expect(onReconnect).toHaveBeenCalledWith("ghost");
  });

  it("disables the button of a server being reconnected, and says when there are none", () => {
    const { rerender } = render(
      <McpServerList servers={servers} onReconnect={() => {}} reconnecting={new Set(["ghost"])} />,
    );
    expect(
      (screen.getByRole("button", { name: "Reconnect ghost" }) as HTMLButtonElement).disabled,
    ).toBe(true);
    rerender(<McpServerList servers={[]} onReconnect={() => {}} />);
    expect(screen.getByTestId("mcp-servers-empty")).toBeTruthy();
  });
});

describe("mcpToolOrigin", () => {
  it("reads the server from the model's tool name", () => {
    expect(mcpToolOrigin("mcp__fs__read_file")).toEqual({ server: "fs", tool: "read_file" });
    expect(mcpToolOrigin("read_file")).toBeUndefined();
    expect(mcpToolOrigin("mcp__broken")).toBeUndefined();
  });
});
