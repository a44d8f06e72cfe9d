"use client";

import type { LineRange } from "@arbor/core";
import * as Dialog from "@radix-ui/react-dialog";
import { useId, useMemo, useState } from "react";
import { DialogPanel } from "./dialog.js";
import { parseLineRange } from "./line-range.js";
import { buttonClass, inputClass } from "./styles.js";

export interface FileSelection {
  path: string;
  range?: LineRange;
}

/** An MCP server's resource, offered beside the workspace files. */
export interface McpResourceSelection {
  server: string;
  uri: string;
  name: string;
}

export interface FilePickerProps {
  /** workspace-relative paths the user may reference */
  files: readonly string[];
  onPick: (selection: FileSelection) => void;
  /** the connected MCP servers' resources (GET /api/mcp/servers) */
  resources?: readonly McpResourceSelection[];
  onPickResource?: (selection: McpResourceSelection) => void;
  disabled?: boolean;
}

const optionClass =
  "cursor-pointer truncate px-2 py-1 font-mono text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 aria-selected:bg-sky-100 dark:hover:bg-zinc-800 dark:aria-selected:bg-sky-900";

function resourceKey(resource: McpResourceSelection): string {
  return `${resource.server}\u0000${resource.uri}`;
}

// Long workspaces: the list shows this many matches; the filter narrows the rest.
const MAX_LISTED = 200;

/** "Attach file" → a dialog to pick a workspace file and, optionally, a line range. */
export function FilePicker({
  files,
  onPick,
  resources = [],
  onPickResource,
  disabled = false,
}: FilePickerProps) {
  const [open, setOpen] = useState(false);
  const [filter, setFilter] = useState("");
  const [selected, setSelectedFile] = useState<string | null>(null);
  const [resource, setResource] = useState<McpResourceSelection | null>(null);
  const setSelected = (path: string | null) => {
    setSelectedFile(path);
    setResource(null);
  };
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const [showErrors, setShowErrors] = useState(false);
  const ids = { filter: useId(), start: useId(), end: useId(), error: useId() };

  const matches = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return needle === "" ? files : files.filter((path) => path.toLowerCase().includes(needle));
  }, [files, filter]);
  const matchingResources = useMemo(() => {
    if (onPickResource === undefined) return [];
    const needle = filter.trim().toLowerCase();
    return needle === ""
      ? resources
      : resources.filter((r) => `${r.server} ${r.name} ${r.uri}`.toLowerCase().includes(needle));
  }, [resources, filter, onPickResource]);
  const range = parseLineRange(start, end);

  const reset = () => {
    setFilter("");
    setSelected(null);
    setStart("");
    setEnd("");
    setShowErrors(false);
  };

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) reset();
      }}
    >
      <Dialog.Trigger className={buttonClass.ghost} aria-label="Attach file" disabled={disabled}>
        {/* an SVG, not the 📎 emoji: machines without an emoji font drew an empty box */}
        <svg
          viewBox="0 0 16 16"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.5"
          strokeLinecap="round"
          aria-hidden="true"
          className="size-4"
        >
          <path d="M13 7.5 8 12.5a3.2 3.2 0 0 1-4.5-4.5L9 2.5a2.1 2.1 0 0 1 3 3L6.5 11a1.1 1.1 0 0 1-1.5-1.5L10 4.5" />
        </svg>
      </Dialog.Trigger>
      <DialogPanel
        title="Add a workspace file"
        description="Pick a file and, if you like, a line range."
      >
        <form
          className="flex flex-col gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            setShowErrors(true);
            if (resource !== null) {
              onPickResource?.(resource);
              setOpen(false);
              reset();
              return;
            }
            if (selected === null || !range.ok) return;
            onPick(range.range ? { path: selected, range: range.range } : { path: selected });
            setOpen(false);
            reset();
          }}
        >
          <label htmlFor={ids.filter} className="text-sm font-medium">
            Filter files
          </label>
          <input
            id={ids.filter}
            className={inputClass}
            value={filter}
            placeholder="Type part of a path"
            onChange={(event) => setFilter(event.target.value)}
          />
          <div
            role="listbox"
            aria-label="Workspace files"
            className="max-h-60 overflow-y-auto rounded-md border border-zinc-200 dark:border-zinc-800"
          >
            {matches.slice(0, MAX_LISTED).map((path) => (
              <div
                key={path}
                role="option"
                tabIndex={0}
                aria-selected={path === selected}
                onClick={() => setSelected(path)}
                onKeyDown={(event) => {
                  if (event.key === "Enter" || event.key === " ") {
                    event.preventDefault();
                    setSelected(path);
                  }
                }}
                className={optionClass}
              >
                {path}
              </div>
            ))}
            {matches.length === 0 && (
              <p className="px-2 py-1 text-xs text-zinc-500">No file matches “{filter}”.</p>
            )}
          </div>
          {matchingResources.length > 0 && (
            <div
              role="listbox"
              aria-label="MCP resources"
              className="max-h-40 overflow-y-auto rounded-md border border-zinc-200 dark:border-zinc-800"
            >
              {matchingResources.slice(0, MAX_LISTED).map((r) => {
                const chosen = resource !== null && resourceKey(resource) === resourceKey(r);
                const choose = () => {
                  setSelectedFile(null);
                  setResource(r);
                };
                return (
                  <div
                    key={resourceKey(r)}
                    role="option"
                    tabIndex={0}
                    aria-selected={chosen}
                    title={r.uri}
                    onClick={choose}
                    onKeyDown={(event) => {
                      if (event.key === "Enter" || event.key === " ") {
                        event.preventDefault();
                        choose();
                      }
                    }}
                    className={optionClass}
                  >
                    <span className="text-zinc-500">{r.server}:</span> {r.name}
                  </div>
                );
              })}
            </div>
          )}
          {matches.length > MAX_LISTED && (
            <p className="text-xs text-zinc-500">
              Showing {MAX_LISTED} of {matches.length}; type to narrow.
            </p>
          )}
          <div className="grid grid-cols-2 gap-2">
            <div>
              <label htmlFor={ids.start} className="text-sm">
                Start line
              </label>
              <input
                id={ids.start}
                inputMode="numeric"
                className={inputClass}
                value={start}
                aria-invalid={showErrors && !range.ok && range.field === "start"}
                aria-describedby={showErrors && !range.ok ? ids.error : undefined}
                onChange={(event) => setStart(event.target.value)}
              />
            </div>
            <div>
              <label htmlFor={ids.end} className="text-sm">
                End line
              </label>
              <input
                id={ids.end}
                inputMode="numeric"
                className={inputClass}
                value={end}
                aria-invalid={showErrors && !range.ok && range.field === "end"}
                aria-describedby={showErrors && !range.ok ? ids.error : undefined}
                onChange={(event) => setEnd(event.target.value)}
              />
            </div>
          </div>
          {showErrors && !range.ok && (
            <p id={ids.error} role="alert" className="text-sm text-red-700 dark:text-red-400">
              {range.error}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <Dialog.Close className={buttonClass.secondary} type="button">
              Cancel
            </Dialog.Close>
            <button
              type="submit"
              className={buttonClass.primary}
              disabled={selected === null && resource === null}
            >
              {resource !== null ? "Add resource" : "Add file"}
            </button>
          </div>
        </form>
      </DialogPanel>
    </Dialog.Root>
  );
}
