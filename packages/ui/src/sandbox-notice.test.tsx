import type { SandboxSettingsView } from "@arbor/core/browser";
import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SandboxBanner } from "./sandbox-notice.js";

const FIX =
  "install bubblewrap (apt-get install bubblewrap) and restart Arbor, or set ARBOR_SANDBOX=off to run tool processes unconfined";

function banner(sandbox: SandboxSettingsView | undefined): string | null {
  render(<SandboxBanner sandbox={sandbox} />);
  return screen.queryByTestId("sandbox-banner")?.textContent ?? null;
}

describe("SandboxBanner", () => {
  it("shows nothing with a sandbox, or while the settings are unknown", () => {
    expect(banner({ mode: "bubblewrap", network: false, refused: "none" })).toBeNull();
    expect(banner(undefined)).toBeNull();
  });

  it("warns after an explicit opt-out, and says how to confine tools again", () => {
    expect(
      banner({
        mode: "none",
        network: true,
        reason: "ARBOR_SANDBOX=off",
        refused: "none",
        fix: "to confine tool processes, install bubblewrap (apt-get install bubblewrap) and unset ARBOR_SANDBOX",
      }),
    ).toBe(
      "⚠ Commands and local MCP servers run without a sandbox, as the server's user (ARBOR_SANDBOX=off). Approve commands with care." +
        "To confine tool processes, install bubblewrap (apt-get install bubblewrap) and unset ARBOR_SANDBOX.",
    );
  });

  it("says what is refused without bubblewrap, why, and how to fix it", () => {
    expect(
      banner({
        mode: "none",
        network: true,
        reason: "bwrap is not installed",
        refused: "unattended",
        fix: FIX,
      }),
    ).toBe(
      "⚠ There is no sandbox (bwrap is not installed): a command runs, as the server's user, only when you approve it; automatically approved commands and local MCP servers are refused." +
        "Install bubblewrap (apt-get install bubblewrap) and restart Arbor, or set ARBOR_SANDBOX=off to run tool processes unconfined.",
    );
    expect(screen.getByRole("status", { name: "" }).textContent ?? "").toContain(
      "There is no sandbox",
    );
  });

  it("says when everything is refused", () => {
    expect(
      banner({
        mode: "unavailable",
        network: false,
        reason: "ARBOR_SANDBOX=bubblewrap, but bwrap is not installed",
        refused: "all",
        fix: FIX,
      }),
    ).toMatch(
      /^⚠ There is no sandbox \(ARBOR_SANDBOX=bubblewrap, but bwrap is not installed\): commands and local MCP servers are refused\.Install bubblewrap/,
    );
  });
});
