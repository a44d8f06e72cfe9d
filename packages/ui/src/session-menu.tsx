"use client";

import * as Dialog from "@radix-ui/react-dialog";
import * as Menu from "@radix-ui/react-dropdown-menu";
import { useId, useState } from "react";
import { DialogPanel } from "./dialog.js";
import type { ExportFormat } from "./session-export.js";
import { buttonClass, inputClass } from "./styles.js";

// A session's actions, in the header and on each row of the session list: rename, share, export (Markdown, JSON), delete. Props in,
// callbacks out: the app renames through the API, downloads the export and offers Undo on delete.

export interface SessionMenuProps {
  title: string;
  onRename: (title: string) => void;
  onExport: (format: ExportFormat) => void;
  onDelete: () => void;
  /** "Share…" (docs/sharing.md): given only to the session's owner, who alone may share it */
  onShare?: (() => void) | undefined;
  /** the trigger's accessible name (default "Session actions"; a list row names its session) */
  label?: string | undefined;
  /** the trigger's classes (default: the header's ghost button) */
  triggerClassName?: string | undefined;
}

const itemClass =
  "flex cursor-pointer select-none items-center rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-zinc-100 dark:data-[highlighted]:bg-zinc-800";

export function SessionMenu({
  title,
  onRename,
  onExport,
  onDelete,
  onShare,
  label = "Session actions",
  triggerClassName = buttonClass.ghost,
}: SessionMenuProps) {
  const [renaming, setRenaming] = useState(false);
  const [draft, setDraft] = useState(title);
  const inputId = useId();
  const trimmed = draft.trim();
  return (
    <>
      <Menu.Root>
        <Menu.Trigger className={triggerClassName} aria-label={label}>
          <span aria-hidden="true">⋯</span>
        </Menu.Trigger>
        <Menu.Portal>
          <Menu.Content
            align="end"
            sideOffset={4}
            className="z-50 min-w-48 rounded-md border border-zinc-200 bg-white p-1 text-zinc-900 shadow-lg dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
          >
            <Menu.Item
              className={itemClass}
              onSelect={() => {
                setDraft(title);
                setRenaming(true);
              }}
            >
              Rename…
            </Menu.Item>
            {onShare !== undefined && (
              <Menu.Item className={itemClass} onSelect={onShare}>
                Share…
              </Menu.Item>
            )}
            <Menu.Item className={itemClass} onSelect={() => onExport("markdown")}>
              Export as Markdown
            </Menu.Item>
            <Menu.Item className={itemClass} onSelect={() => onExport("json")}>
              Export as JSON
            </Menu.Item>
            <Menu.Separator className="my-1 h-px bg-zinc-200 dark:bg-zinc-800" />
            <Menu.Item
              className={`${itemClass} text-red-700 dark:text-red-400`}
              onSelect={onDelete}
            >
              Delete session
            </Menu.Item>
          </Menu.Content>
        </Menu.Portal>
      </Menu.Root>
      <Dialog.Root open={renaming} onOpenChange={setRenaming}>
        <DialogPanel title="Rename session">
          <form
            className="flex flex-col gap-3"
            onSubmit={(event) => {
              event.preventDefault();
              if (trimmed === "") return;
              onRename(trimmed);
              setRenaming(false);
            }}
          >
            <label htmlFor={inputId} className="text-sm">
              Title
            </label>
            <input
              id={inputId}
              className={inputClass}
              value={draft}
              maxLength={200}
              onChange={(event) => setDraft(event.target.value)}
            />
            <div className="flex justify-end gap-2">
              <Dialog.Close className={buttonClass.secondary}>Cancel</Dialog.Close>
              <button type="submit" className={buttonClass.primary} disabled={trimmed === ""}>
                Rename
              </button>
            </div>
          </form>
        </DialogPanel>
      </Dialog.Root>
    </>
  );
}
