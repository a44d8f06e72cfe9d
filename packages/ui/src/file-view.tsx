"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useEffect, useRef } from "react";
import { DialogPanel } from "./dialog.js";

// The file view: a workspace file with line numbers, scrolled to and marking one line. Opened from
// the `file:line` links of codebase tool results; the app fetches the text and passes it in.

export interface FileViewProps {
  /** the file and line to show; undefined = closed */
  target: { path: string; line: number } | undefined;
  /** the file's text, once loaded */
  file?: { content: string; total_lines: number; truncated: boolean } | undefined;
  /** why the file could not be shown */
  error?: string | undefined;
  onClose: () => void;
}

export function FileView({ target, file, error, onClose }: FileViewProps) {
  const marked = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (file !== undefined) marked.current?.scrollIntoView?.({ block: "center" });
  }, [file]);
  const lines = file?.content.split("\n") ?? [];
  if (file?.content.endsWith("\n")) lines.pop();
  return (
    <Dialog.Root
      open={target !== undefined}
      onOpenChange={(open) => (open ? undefined : onClose())}
    >
      {target !== undefined && (
        <DialogPanel title={`${target.path}:${target.line}`} wide>
          {error !== undefined ? (
            <p role="alert" className="text-sm text-red-700 dark:text-red-300">
              {error}
            </p>
          ) : file === undefined ? (
            <p className="text-sm text-zinc-500">Loading…</p>
          ) : (
            <ol
              aria-label={`Contents of ${target.path}`}
              className="max-h-[70dvh] overflow-auto rounded bg-zinc-50 py-2 font-mono text-xs dark:bg-zinc-950"
            >
              {lines.map((text, i) => {
                const number = i + 1;
                const current = number === target.line;
                return (
                  <li
                    // biome-ignore lint/suspicious/noArrayIndexKey: lines of one file never reorder
                    key={i}
                    ref={current ? marked : undefined}
                    aria-current={current ? "location" : undefined}
                    className={`flex gap-3 px-2 whitespace-pre ${current ? "bg-amber-100 dark:bg-amber-900/50" : ""}`}
                  >
                    <span
                      aria-hidden="true"
                      className="w-10 shrink-0 text-right text-zinc-400 select-none"
                    >
                      {number}
                    </span>
                    <span>{text}</span>
                  </li>
                );
              })}
              {file.truncated && <li className="px-2 text-zinc-500">… (the file is longer)</li>}
            </ol>
          )}
        </DialogPanel>
      )}
    </Dialog.Root>
  );
}
