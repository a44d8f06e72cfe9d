import type { McpServerView } from "@arbor/core";
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
