"use client";

import * as ToggleGroup from "@radix-ui/react-toggle-group";
import { Toggletip } from "./toggletip.js";

export type TranscriptView = "optimized" | "full";

export interface ViewSwitchProps {
  value: TranscriptView;
  onChange: (view: TranscriptView) => void;
}

const itemClass =
  "px-3 py-1 text-xs font-medium text-zinc-600 focus-visible:outline-2 focus-visible:outline-sky-500 data-[state=on]:bg-white data-[state=on]:text-zinc-900 data-[state=on]:shadow-sm dark:text-zinc-300 dark:data-[state=on]:bg-zinc-700 dark:data-[state=on]:text-white rounded-md";

/** What each view shows, in a sentence (the switch's toggletip). */
export const VIEW_EXPLAINED: Record<TranscriptView, string> = {
  optimized:
    "The conversation as the next request sends it to the model: older messages may be summarized or shortened to fit its context window.",
  full: "Every message as it was written, including those the model now gets summarized or shortened.",
};

/** Switches the transcript between the optimized view the model gets and the full history. */
export function ViewSwitch({ value, onChange }: ViewSwitchProps) {
  return (
    <span className="inline-flex items-center gap-1">
      <ToggleGroup.Root
        type="single"
        aria-label="Transcript view"
        value={value}
        // Radix reports "" when the pressed item is pressed again; one view is always shown.
        onValueChange={(next) => {
          if (next === "optimized" || next === "full") onChange(next);
        }}
        className="inline-flex rounded-lg bg-zinc-100 p-0.5 dark:bg-zinc-800"
      >
        <ToggleGroup.Item value="optimized" className={itemClass}>
          What the model sees
        </ToggleGroup.Item>
        <ToggleGroup.Item value="full" className={itemClass}>
          Full history
        </ToggleGroup.Item>
      </ToggleGroup.Root>
      <Toggletip label="the transcript views">
        <strong className="font-semibold">What the model sees:</strong> {VIEW_EXPLAINED.optimized}{" "}
        <strong className="font-semibold">Full history:</strong> {VIEW_EXPLAINED.full}
      </Toggletip>
    </span>
  );
}
