"use client";

import * as Dialog from "@radix-ui/react-dialog";
import type { ReactNode } from "react";

// The overlay and panel every Radix dialog here shares. Radix traps focus inside, restores it to
// the trigger on close and closes on Esc. Full-screen sheet on phones, centered card from `sm` up.

export interface DialogPanelProps {
  title: string;
  description?: string;
  children: ReactNode;
  /** wider panels for side-by-side content (conflicts) */
  wide?: boolean;
}

export function DialogPanel({ title, description, children, wide = false }: DialogPanelProps) {
  return (
    <Dialog.Portal>
      <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40 dark:bg-black/60" />
      <Dialog.Content
        // Radix links Dialog.Description itself; without one it wants an explicit "none".
        {...(description === undefined ? { "aria-describedby": undefined } : {})}
        className={`fixed inset-x-0 bottom-0 z-50 flex max-h-[90dvh] flex-col gap-3 overflow-y-auto rounded-t-xl bg-white p-4 text-zinc-900 shadow-xl sm:inset-auto sm:top-1/2 sm:left-1/2 sm:w-full sm:-translate-x-1/2 sm:-translate-y-1/2 sm:rounded-xl dark:bg-zinc-900 dark:text-zinc-100 ${wide ? "sm:max-w-4xl" : "sm:max-w-lg"}`}
      >
        <div className="flex items-start justify-between gap-2">
          <Dialog.Title className="text-base font-semibold">{title}</Dialog.Title>
          <Dialog.Close
            aria-label="Close dialog"
            className="rounded p-1 text-zinc-500 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 dark:hover:bg-zinc-800"
          >
            ✕
          </Dialog.Close>
        </div>
        {description !== undefined && (
          <Dialog.Description className="text-sm text-zinc-600 dark:text-zinc-400">
            {description}
          </Dialog.Description>
        )}
        {children}
      </Dialog.Content>
    </Dialog.Portal>
  );
}

export interface DrawerProps {
  title: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  children: ReactNode;
  /** the edge it slides from */
  side?: "left" | "right";
}

/**
 * A full-height panel at the screen's edge (navigation on tablets and phones): always in view,
 * whatever the page's scroll; Radix traps focus and closes it on Esc or a click outside.
 */
export function Drawer({ title, open, onOpenChange, children, side = "left" }: DrawerProps) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40 dark:bg-black/60" />
        <Dialog.Content
          aria-describedby={undefined}
          className={`fixed inset-y-0 z-50 flex h-dvh w-80 max-w-[88vw] flex-col gap-3 overflow-y-auto bg-white p-4 text-zinc-900 shadow-xl dark:bg-zinc-900 dark:text-zinc-100 ${side === "left" ? "left-0" : "right-0"}`}
        >
          <div className="flex items-center justify-between gap-2">
            <Dialog.Title className="text-base font-semibold">{title}</Dialog.Title>
            <Dialog.Close
              aria-label={`Close ${title.toLowerCase()}`}
              className="rounded p-1 text-zinc-500 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 dark:hover:bg-zinc-800"
            >
              ✕
            </Dialog.Close>
          </div>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
