"use client";

import { useEffect, useRef, useState } from "react";
import { buttonClass } from "./styles.js";

// "Deleted … Undo": the notice a delete leaves for a while before it is carried out. Its time runs
// only while the person is elsewhere: hovering it or giving it the keyboard focus stops the clock
// (WCAG 2.2.1, timing adjustable), and the clock goes on with what was left when they leave.

export interface UndoToastProps {
  message: string;
  /** how long the notice stays while left alone */
  durationMs: number;
  onUndo: () => void;
  /** the time ran out: carry out what can no longer be undone */
  onExpire: () => void;
}

export function UndoToast({ message, durationMs, onUndo, onExpire }: UndoToastProps) {
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const left = useRef(durationMs);
  const expire = useRef(onExpire);
  expire.current = onExpire;
  const held = hovered || focused;
  useEffect(() => {
    if (held) return;
    const started = Date.now();
    const timer = setTimeout(() => expire.current(), left.current);
    return () => {
      clearTimeout(timer);
      left.current = Math.max(0, left.current - (Date.now() - started));
    };
  }, [held]);
  return (
    <div
      role="status"
      className="flex w-full items-center gap-3 rounded-lg border border-zinc-200 bg-white px-4 py-3 text-sm text-zinc-900 shadow-lg dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setFocused(false);
      }}
    >
      <span className="min-w-0 flex-1 break-words">{message}</span>
      <button type="button" className={buttonClass.secondary} onClick={onUndo}>
        Undo
      </button>
    </div>
  );
}
