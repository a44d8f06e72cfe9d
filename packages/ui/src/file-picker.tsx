"use client";

import type { LineRange } from "@arbor/core/browser";
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

/** An MCP server's resource template (RFC 6570): its variables are asked for in fields. */
export interface McpResourceTemplateSelection {
  server: string;
  uriTemplate: string;
  name: string;
}

export interface FilePickerProps {
  /** workspace-relative paths the user may reference */
  files: readonly string[];
  onPick: (selection: FileSelection) => void;
  /** the connected MCP servers' resources (GET /api/mcp/servers) */
  resources?: readonly McpResourceSelection[];
  /** their resource templates: picking one asks for its variables and builds the URI */
  resourceTemplates?: readonly McpResourceTemplateSelection[];
  onPickResource?: (selection: McpResourceSelection) => void;
  disabled?: boolean;
  /** controlled opening (the composer opens the picker when `@` is typed) */
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
}

const EXPRESSION = /\{([+#./;?&]?)([^}]+)\}/g;

/** The variable names of a URI template, in order, each once. */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(EXPRESSION)) {
    for (const spec of (match[2] ?? "").split(",")) {
      const name = spec.replace(/(\*|:\d+)$/, "").trim();
      if (name !== "" && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/**
 * The URI of `template` with `values` (RFC 6570 simple and reserved expansion, which is what
 * resource templates use; other operators get their prefix and comma-joined values). The server
 * checks the URI against its templates when the resource is read.
 */
export function expandTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(EXPRESSION, (_, operator: string, specs: string) => {
    const reserved = operator === "+" || operator === "#";
    const encode = (value: string) => (reserved ? encodeURI(value) : encodeURIComponent(value));
    const parts = specs
      .split(",")
      .map((spec) => spec.replace(/(\*|:\d+)$/, "").trim())
      .filter((name) => (values[name] ?? "") !== "")
      .map((name) => {
        const value = encode(values[name] ?? "");
        return operator === "?" || operator === "&" || operator === ";"
          ? `${name}=${value}`
          : value;
      });
    if (parts.length === 0) return "";
    const prefix = operator === "+" ? "" : operator;
    const separator =
      operator === "?" || operator === "&"
        ? "&"
        : operator === "."
          ? "."
          : operator === "/"
            ? "/"
            : operator === ";"
              ? ";"
              : ",";
    return `${prefix}${parts.join(separator)}`;
  });
}

const optionClass =
  "cursor-pointer truncate px-2 py-1 font-mono text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 aria-selected:bg-sky-100 dark:hover:bg-zinc-800 dark:aria-selected:bg-sky-900";

function resourceKey(resource: McpResourceSelection): string {
  return `${resource.server}\u0000${resource.uri}`;
}

function templateKey(template: McpResourceTemplateSelection): string {
  return `${template.server}\u0000${template.uriTemplate}`;
}

// Long workspaces: the list shows this many matches; the filter narrows the rest.
const MAX_LISTED = 200;

/** "Attach file" → a dialog to pick a workspace file and, optionally, a line range. */
export function FilePicker({
  files,
  onPick,
  resources = [],
  resourceTemplates = [],
  onPickResource,
  disabled = false,
  open: controlledOpen,
  onOpenChange,
}: FilePickerProps) {
  const [ownOpen, setOwnOpen] = useState(false);
  const open = controlledOpen ?? ownOpen;
  const setOpen = (next: boolean) => {
    setOwnOpen(next);
    onOpenChange?.(next);
  };
  const [template, setTemplateState] = useState<McpResourceTemplateSelection | null>(null);
  const [variables, setVariables] = useState<Record<string, string>>({});
  const [filter, setFilter] = useState("");
  const [selected, setSelectedFile] = useState<string | null>(null);
  const [resource, setResource] = useState<McpResourceSelection | null>(null);
  const setSelected = (path: string | null) => {
    setSelectedFile(path);
    setResource(null);
    setTemplateState(null);
  };
  const chooseTemplate = (next: McpResourceTemplateSelection) => {
    setSelectedFile(null);
    setResource(null);
    setTemplateState(next);
    setVariables({});
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
  const matchingTemplates = useMemo(() => {
    if (onPickResource === undefined) return [];
    const needle = filter.trim().toLowerCase();
    return needle === ""
      ? resourceTemplates
      : resourceTemplates.filter((t) =>
          `${t.server} ${t.name} ${t.uriTemplate}`.toLowerCase().includes(needle),
        );
  }, [resourceTemplates, filter, onPickResource]);
  const range = parseLineRange(start, end);
  const templateNames = template === null ? [] : templateVariables(template.uriTemplate);
  const templateReady = templateNames.every((name) => (variables[name] ?? "").trim() !== "");

  const reset = () => {
    setFilter("");
    setSelected(null);
    setVariables({});
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
            // React sends a portal's events up the component tree: the composer's own form
            // (which sends the message) must not see this submit
            event.stopPropagation();
            setShowErrors(true);
            if (template !== null) {
              if (!templateReady) return;
              onPickResource?.({
                server: template.server,
                uri: expandTemplate(template.uriTemplate, variables),
                name: template.name,
              });
              setOpen(false);
              reset();
              return;
            }
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
                  setTemplateState(null);
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
          {matchingTemplates.length > 0 && (
            <div
              role="listbox"
              aria-label="MCP resource templates"
              className="max-h-40 overflow-y-auto rounded-md border border-zinc-200 dark:border-zinc-800"
            >
              {matchingTemplates.slice(0, MAX_LISTED).map((t) => {
                const chosen = template !== null && templateKey(template) === templateKey(t);
                return (
                  <div
                    key={templateKey(t)}
                    role="option"
                    tabIndex={0}
                    aria-selected={chosen}
                    title={t.uriTemplate}
                    onClick={() => chooseTemplate(t)}
                    onKeyDown={(event) => {
                      if (event.key === "Enter" || event.key === " ") {
                        event.preventDefault();
                        chooseTemplate(t);
                      }
                    }}
                    className={optionClass}
                  >
                    <span className="text-zinc-500">{t.server}:</span> {t.name}{" "}
                    <span className="text-zinc-500">{t.uriTemplate}</span>
                  </div>
                );
              })}
            </div>
          )}
          {template !== null && templateNames.length > 0 && (
            <fieldset
              aria-label={`Variables of ${template.uriTemplate}`}
              className="flex flex-col gap-2 rounded-md border border-zinc-200 p-2 dark:border-zinc-800"
            >
              {templateNames.map((name) => {
                const id = `${ids.filter}-var-${name}`;
                return (
                  <div key={name} className="flex flex-col gap-0.5">
                    <label htmlFor={id} className="font-mono text-xs">
                      {name}
                    </label>
                    <input
                      id={id}
                      className={inputClass}
                      value={variables[name] ?? ""}
                      onChange={(event) =>
                        setVariables((previous) => ({ ...previous, [name]: event.target.value }))
                      }
                    />
                  </div>
                );
              })}
              <p className="font-mono text-xs text-zinc-500">
                {expandTemplate(template.uriTemplate, variables)}
              </p>
            </fieldset>
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
              disabled={template !== null ? !templateReady : selected === null && resource === null}
            >
              {resource !== null || template !== null ? "Add resource" : "Add file"}
            </button>
          </div>
        </form>
      </DialogPanel>
    </Dialog.Root>
  );
}
