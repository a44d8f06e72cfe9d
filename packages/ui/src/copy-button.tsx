"use client";

import { useEffect, useState } from "react";
import { buttonClass } from "./styles.js";

// Copies a text to the clipboard and says so for two seconds. The text is read at click time
// (getText), so a code block's button copies what the block shows, highlighting spans and all.

export interface CopyButtonProps {
  getText: () => string;
  /** the accessible name, e.g. "Copy message" */
  label: string;
  className?: string;
}

export function CopyButton({ getText, label, className = buttonClass.ghost }: CopyButtonProps) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2_000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      aria-label={label}
      className={className}
      onClick={() => {
        // clipboard access needs a secure context (https or localhost); say so when refused
        const clipboard = typeof navigator !== "undefined" ? navigator.clipboard : undefined;
        if (!clipboard) {
          setState("failed");
          return;
        }
        clipboard.writeText(getText()).then(
          () => setState("copied"),
          () => setState("failed"),
        );
      }}
    >
      <span aria-live="polite">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
      </span>
    </button>
  );
}
