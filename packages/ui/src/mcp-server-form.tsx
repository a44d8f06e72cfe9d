"use client";

import type { AddMcpServerRequest } from "@arbor/core/browser";
import { type KeyboardEvent, useId, useState } from "react";
import { buttonClass, inputClass } from "./styles.js";

// "Add an MCP server" in the settings (issue #27): a local server (a command and its arguments,
// one per line) or a remote one (a URL). The person adding it trusts it by that act; the server
// records who. It sits inside the settings' form, so it is no form of its own: Enter adds.

export interface McpServerFormProps {
  /** adds the server (POST /api/mcp/servers); resolves with an error to show, or undefined */
  onAdd: (server: AddMcpServerRequest) => Promise<string | undefined>;
}

type Kind = "local" | "remote";

export function McpServerForm({ onAdd }: McpServerFormProps) {
  const [kind, setKind] = useState<Kind>("local");
  const [name, setName] = useState("");
  const [command, setCommand] = useState("");
  const [args, setArgs] = useState("");
  const [url, setUrl] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const ids = { name: useId(), command: useId(), args: useId(), url: useId() };

  const add = async () => {
    const server: AddMcpServerRequest =
      kind === "local"
        ? {
            name: name.trim(),
            command: command.trim(),
            args: args
              .split("\n")
              .map((a) => a.trim())
              .filter((a) => a !== ""),
          }
        : { name: name.trim(), url: url.trim() };
    setBusy(true);
    try {
      const problem = await onAdd(server);
      setError(problem);
      if (problem === undefined) {
        setName("");
        setCommand("");
        setArgs("");
        setUrl("");
      }
    } finally {
      setBusy(false);
    }
  };
  const enterAdds = (event: KeyboardEvent) => {
    if (event.key !== "Enter" || event.shiftKey) return;
    event.preventDefault();
    void add();
  };

  return (
    <fieldset className="mt-2 flex flex-col gap-2 rounded-md border border-dashed border-zinc-300 p-2 dark:border-zinc-700">
      <legend className="px-1 text-xs font-medium">Add an MCP server</legend>
      <div className="flex gap-4 text-sm">
        <label className="flex items-center gap-1">
          <input
            type="radio"
            name="mcp-kind"
            checked={kind === "local"}
            onChange={() => setKind("local")}
          />
          Local (a command)
        </label>
        <label className="flex items-center gap-1">
          <input
            type="radio"
            name="mcp-kind"
            checked={kind === "remote"}
            onChange={() => setKind("remote")}
          />
          Remote (a URL)
        </label>
      </div>
      <label htmlFor={ids.name} className="text-sm">
        Server name
      </label>
      <input
        id={ids.name}
        className={inputClass}
        value={name}
        placeholder="everything"
        onKeyDown={enterAdds}
        onChange={(event) => setName(event.target.value)}
      />
      {kind === "local" ? (
        <>
          <label htmlFor={ids.command} className="text-sm">
            Command
          </label>
          <input
            id={ids.command}
            className={`${inputClass} font-mono`}
            value={command}
            placeholder="npx"
            onKeyDown={enterAdds}
            onChange={(event) => setCommand(event.target.value)}
          />
          <label htmlFor={ids.args} className="text-sm">
            Arguments (one per line)
          </label>
          <textarea
            id={ids.args}
            rows={2}
            className={`${inputClass} font-mono text-xs`}
            value={args}
            placeholder={"-y\n@modelcontextprotocol/server-everything"}
            onChange={(event) => setArgs(event.target.value)}
          />
        </>
      ) : (
        <>
          <label htmlFor={ids.url} className="text-sm">
            URL
          </label>
          <input
            id={ids.url}
            className={`${inputClass} font-mono`}
            value={url}
            placeholder="https://example.com/mcp"
            onKeyDown={enterAdds}
            onChange={(event) => setUrl(event.target.value)}
          />
        </>
      )}
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        Adding it trusts it: it starts at once (a local one in the sandbox) and the audit log
        records that you added it. Only admins and owners can add servers.
      </p>
      {error !== undefined && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
      <div>
        <button
          type="button"
          className={buttonClass.secondary}
          disabled={busy}
          onClick={() => void add()}
        >
          {busy ? "Adding…" : "Add server"}
        </button>
      </div>
    </fieldset>
  );
}
