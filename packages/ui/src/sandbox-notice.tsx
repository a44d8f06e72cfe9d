"use client";

import type { SandboxSettingsView } from "@arbor/core/browser";
import { unreachable } from "./state-label.js";

// How tool processes (bash's commands, local MCP servers) run here, from GET /api/settings: one
// sentence for the session settings, and the chat's banner while there is no sandbox.

/** One sentence on where commands run. Exported for tests. */
export function sandboxText(sandbox: SandboxSettingsView): string {
  const why = sandbox.reason ? ` (${sandbox.reason})` : "";
  switch (sandbox.mode) {
    case "bubblewrap":
      return `Commands run in a sandbox (bubblewrap, ${sandbox.network ? "with network" : "no network"}): only the workspace is writable. Local MCP servers run in it too.`;
    case "none":
    case "unavailable":
      switch (sandbox.refused) {
        case "none":
          return `Commands and local MCP servers run without a sandbox, as the server's user${why}. Approve commands with care.`;
        case "unattended":
          return `There is no sandbox${why}: a command runs, as the server's user, only when you approve it; automatically approved commands and local MCP servers are refused.`;
        case "all":
          return `There is no sandbox${why}: commands and local MCP servers are refused.`;
        default:
          return unreachable(sandbox.refused);
      }
    default:
      return unreachable(sandbox.mode);
  }
}

/** What to do about it, as a sentence; undefined when there is nothing to do. */
export function sandboxFixText(sandbox: SandboxSettingsView): string | undefined {
  if (sandbox.fix === undefined || sandbox.fix === "") return undefined;
  const fix = sandbox.fix.charAt(0).toUpperCase() + sandbox.fix.slice(1);
  return fix.endsWith(".") ? fix : `${fix}.`;
}

export interface SandboxBannerProps {
  /** GET /api/settings `sandbox`; nothing is shown while unknown or when there is a sandbox */
  sandbox: SandboxSettingsView | undefined;
}

/** The chat's warning while tools would run unconfined or are refused for want of a sandbox. */
export function SandboxBanner({ sandbox }: SandboxBannerProps) {
  if (sandbox === undefined || sandbox.mode === "bubblewrap") return null;
  const fix = sandboxFixText(sandbox);
  return (
    <div
      role="status"
      data-testid="sandbox-banner"
      className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-100"
    >
      <p>
        <span aria-hidden="true">⚠ </span>
        {sandboxText(sandbox)}
      </p>
      {fix !== undefined && <p className="mt-1 text-xs">{fix}</p>}
    </div>
  );
}
