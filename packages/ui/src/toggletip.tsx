"use client";

import * as Popover from "@radix-ui/react-popover";
import { type ReactNode, useRef, useState } from "react";

// An explanation behind a small "i" button (issue #27, case 12): a `title` tooltip is never shown
// on a touch screen and is not reached by the keyboard, so a word that needs a sentence gets a
// toggletip instead. A tap, a click, Enter or Space opens it; Escape, a tap outside or another
// tap on the button closes it (Radix Popover); a mouse hovering the button opens it too and
// leaving closes what the hover opened. The button's name says what it explains ("About …").

export interface ToggletipProps {
  /** what is explained, for the button's name: "About {label}" */
  label: string;
  /** the explanation: a sentence or two */
  children: ReactNode;
  /** where the bubble opens (default below) */
  side?: "top" | "bottom" | "left" | "right";
  className?: string;
}

export function Toggletip({ label, children, side = "bottom", className = "" }: ToggletipProps) {
  const [open, setOpen] = useState(false);
  // whether the open bubble came from a hover: then leaving the button closes it again, while
  // one opened by a tap, a click or the keyboard stays until it is dismissed
  const byHover = useRef(false);
  return (
    <Popover.Root
      open={open}
      onOpenChange={(next) => {
        byHover.current = false;
        setOpen(next);
      }}
    >
      <Popover.Trigger
        type="button"
        aria-label={`About ${label}`}
        data-toggletip=""
        className={`inline-flex h-6 w-6 shrink-0 items-center justify-center rounded-full text-zinc-500 hover:text-zinc-800 focus-visible:outline-2 focus-visible:outline-sky-500 data-[state=open]:text-sky-700 dark:text-zinc-400 dark:hover:text-zinc-100 dark:data-[state=open]:text-sky-300 ${className}`}
        onPointerEnter={(event) => {
          if (event.pointerType !== "mouse" || open) return;
          byHover.current = true;
          setOpen(true);
        }}
        onPointerLeave={(event) => {
          if (event.pointerType !== "mouse" || !byHover.current) return;
          byHover.current = false;
          setOpen(false);
        }}
        onClick={(event) => {
          // a click on a bubble the hover opened keeps it open (the click is the person's
          // "show me"), instead of Radix's toggle closing it under the pointer
          if (byHover.current) {
            event.preventDefault();
            byHover.current = false;
          }
        }}
      >
        <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" fill="none">
          <circle cx="8" cy="8" r="6.5" stroke="currentColor" strokeWidth="1.3" />
          <path d="M8 7.2v4" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
          <circle cx="8" cy="4.9" r="0.9" fill="currentColor" />
        </svg>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          side={side}
          sideOffset={6}
          collisionPadding={8}
          aria-label={label}
          // a bubble opened by a hover leaves the focus where it is
          onOpenAutoFocus={(event) => {
            if (byHover.current) event.preventDefault();
          }}
          className="z-50 max-w-[min(20rem,calc(100vw-1rem))] rounded-lg border border-zinc-200 bg-white px-3 py-2 text-xs leading-relaxed font-normal text-zinc-700 shadow-lg focus:outline-none dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200"
        >
          {children}
          <Popover.Arrow className="fill-white dark:fill-zinc-900" />
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
