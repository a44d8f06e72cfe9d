"use client";

import { useState } from "react";
import { plural } from "../format.js";

// A user's text as typed, cut to its first lines when it is long (a 30,000-character paste must
// not become a card taller than the screen), with a toggle to show all of it.

/** Longer than either of these, a text is shown cut until asked. */
export const LONG_TEXT_LINES = 16;
export const LONG_TEXT_CHARS = 2_000;

/** The part shown while collapsed: at most LONG_TEXT_LINES lines and LONG_TEXT_CHARS chars. */
export function collapsedText(text: string): string | undefined {
  const lines = text.split("\n");
  if (lines.length <= LONG_TEXT_LINES && text.length <= LONG_TEXT_CHARS) return undefined;
  return lines.slice(0, LONG_TEXT_LINES).join("\n").slice(0, LONG_TEXT_CHARS);
}

export function LongText({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const cut = collapsedText(text);
  return (
    <div>
      <p className="whitespace-pre-wrap break-words text-sm">
        {cut === undefined || open ? text : `${cut}…`}
      </p>
      {cut !== undefined && (
        <button
          type="button"
          aria-expanded={open}
          className="mt-1 text-xs font-medium text-sky-700 hover:underline dark:text-sky-300"
          onClick={() => setOpen((was) => !was)}
        >
          {open
            ? "Show less"
            : `Show all (${plural(text.split("\n").length, "line")}, ${text.length.toLocaleString("en")} characters)`}
        </button>
      )}
    </div>
  );
}
