"use client";

import type { AddMcpServerRequest, McpServerView } from "@arbor/core/browser";
import { McpServerForm } from "./mcp-server-form.js";
import { badgeClass, buttonClass } from "./styles.js";

// The MCP servers of mcp_servers.json, as the settings show them: a status dot and word, the
// error of a failed server, its tools (with the name the model sees), who added a server of the
// settings, and a reconnect button for those who may change the install's servers.

const statusStyle: Record<McpServerView["status"], { dot: string; label: string }> = {
  connected: { dot: "bg-emerald-500", label: "connected" },
  connecting: { dot: "bg-amber-400", label: "connecting" },
  failed: { dot: "bg-red-500", label: "failed" },
  disabled: { dot: "bg-zinc-400", label: "disabled" },
  untrusted: { dot: "bg-amber-600", label: "waits for trust" },
};

const transportLabel: Record<McpServerView["transport"], string> = {
  stdio: "stdio",
  http: "Streamable HTTP",
  sse: "HTTP+SSE",
};

export interface McpServerListProps {
  servers: readonly McpServerView[];
  /**
   * retries one server (POST /api/mcp/servers/{name}/reconnect, install.configure); absent: no
   * Reconnect button (a member, whom the route would answer 403)
   */
  onReconnect?: (name: string) => void;
  /** names whose reconnect is under way (their button is disabled) */
  reconnecting?: ReadonlySet<string>;
  /** adds a server (admins); absent: no form. Resolves with an error to show, or undefined */
  onAdd?: (server: AddMcpServerRequest) => Promise<string | undefined>;
  /** turns a server added in the settings (`managed`) on or off */
  onSetEnabled?: (name: string, enabled: boolean) => void;
  /** removes a server added in the settings (`managed`) */
  onRemove?: (name: string) => void;
}

export function McpServerList({
  servers,
  onReconnect,
  reconnecting,
  onAdd,
  onSetEnabled,
  onRemove,
}: McpServerListProps) {
  return (
    <>
      <ServerItems
        servers={servers}
        {...(onReconnect !== undefined ? { onReconnect } : {})}
        {...(reconnecting !== undefined ? { reconnecting } : {})}
        {...(onSetEnabled !== undefined ? { onSetEnabled } : {})}
        {...(onRemove !== undefined ? { onRemove } : {})}
      />
      {onAdd !== undefined && <McpServerForm onAdd={onAdd} />}
    </>
  );
}

function ServerItems({
  servers,
  onReconnect,
  reconnecting,
  onSetEnabled,
  onRemove,
}: Omit<McpServerListProps, "onAdd">) {
  if (servers.length === 0) {
    return (
      <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="mcp-servers-empty">
        No MCP servers. Add one below, or in mcp_servers.json at the workspace root (see
        docs/mcp.md).
      </p>
    );
  }
  return (
    <ul className="flex flex-col gap-2" aria-label="MCP servers">
      {servers.map((server) => {
        const style = statusStyle[server.status];
        const busy = reconnecting?.has(server.name) === true;
        return (
          <li
            key={server.name}
            data-testid="mcp-server"
            data-status={server.status}
            className="rounded-md border border-zinc-200 p-2 dark:border-zinc-700"
          >
            <div className="flex items-center gap-2">
              <span
                aria-hidden="true"
                className={`inline-block h-2.5 w-2.5 shrink-0 rounded-full ${style.dot}`}
              />
              <span className="min-w-0 flex-1 truncate text-sm font-medium">{server.name}</span>
              <span
                className={`${badgeClass} bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300`}
              >
                {transportLabel[server.transport]}
              </span>
              <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="mcp-status">
                {style.label}
              </span>
              {onReconnect !== undefined && server.status !== "disabled" && (
                <button
                  type="button"
                  className={buttonClass.secondary}
                  disabled={busy}
                  aria-label={`Reconnect ${server.name}`}
                  onClick={() => onReconnect(server.name)}
                >
                  {busy ? "Reconnecting…" : "Reconnect"}
                </button>
              )}
            </div>
            {server.managed === true && (
              <div className="mt-1 flex items-center gap-2">
                {onSetEnabled !== undefined && (
                  <label className="flex items-center gap-1 text-xs">
                    <input
                      type="checkbox"
                      aria-label={`Enabled ${server.name}`}
                      checked={server.status !== "disabled"}
                      onChange={(event) => onSetEnabled(server.name, event.currentTarget.checked)}
                    />
                    Enabled
                  </label>
                )}
                {onRemove !== undefined && (
                  <button
                    type="button"
                    className={buttonClass.ghost}
                    aria-label={`Remove ${server.name}`}
                    onClick={() => onRemove(server.name)}
                  >
                    Remove
                  </button>
                )}
                <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="mcp-added">
                  {server.added_by !== undefined
                    ? `added by ${server.added_by.name}`
                    : "added in the settings"}
                </span>
              </div>
            )}
            {server.error !== undefined && (
              <p
                data-testid="mcp-error"
                className="mt-1 text-xs break-words text-red-700 dark:text-red-400"
              >
                {server.error}
              </p>
            )}
            {server.tools.length > 0 && (
              <details className="mt-1 text-xs">
                <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
                  {server.tools.length} tool{server.tools.length === 1 ? "" : "s"}
                  {server.resources.length > 0 ? `, ${server.resources.length} resources` : ""}
                  {server.prompts.length > 0 ? `, ${server.prompts.length} prompts` : ""}
                </summary>
                <ul className="mt-1 flex flex-col gap-0.5">
                  {server.tools.map((tool) => (
                    <li key={tool.name} title={tool.description}>
                      <code className="font-mono">{tool.model_name}</code>
                      {tool.description !== "" && (
                        <span className="text-zinc-600 dark:text-zinc-400">
                          {" "}
                          — {tool.description}
                        </span>
                      )}
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </li>
        );
      })}
    </ul>
  );
}
