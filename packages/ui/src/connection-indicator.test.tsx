import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ConnectionIndicator, type ConnectionState } from "./connection-indicator.js";

describe("ConnectionIndicator", () => {
  it.each<[ConnectionState, string]>([
    ["connecting", "Connecting"],
    ["connected", "Live"],
    ["reconnecting", "Reconnecting…"],
    ["offline", "Offline"],
  ])("names the %s state", (state, label) => {
    render(<ConnectionIndicator state={state} />);
    const status = screen.getByRole("status", { name: `Connection: ${label}` });
    expect(status.dataset.connection).toBe(state);
    expect(status.textContent).toBe(label);
  });
});
