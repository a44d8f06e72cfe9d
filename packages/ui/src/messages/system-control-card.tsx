"use client";

import type { BodyOf } from "@arbor/core/browser";
import { unreachable } from "../state-label.js";

type Kind = BodyOf<"system_control">["kind"];

export function systemKindLabel(kind: Kind): string {
  switch (kind) {
    case "summary":
      return "Summary of earlier messages";
    case "notice":
      return "Notice";
    case "mode_change":
      return "Mode changed";
    case "auto_loop_limit":
      return "Auto-loop limit";
    case "interrupted":
      return "Interrupted";
    case "error":
      return "Error";
    case "recovered":
      return "Recovered";
    default:
      return unreachable(kind);
  }
}

const kindTone: Record<Kind, string> = {
  summary: "text-zinc-600 dark:text-zinc-300",
  notice: "text-zinc-600 dark:text-zinc-300",
  mode_change: "text-violet-700 dark:text-violet-300",
  auto_loop_limit: "text-amber-700 dark:text-amber-300",
  interrupted: "text-amber-700 dark:text-amber-300",
  error: "text-red-700 dark:text-red-400",
  recovered: "text-emerald-700 dark:text-emerald-300",
};

/** A notice in the transcript. Summaries appear here only in the optimized view; the divider shows the rest. */
export function SystemControlCard({ body }: { body: BodyOf<"system_control"> }) {
  const label = systemKindLabel(body.kind);
  // a notice that names its kind itself ("Interrupted by the user.") is not prefixed with it
  // again ("Interrupted: Interrupted by …", issue #27)
  const named = body.text.startsWith(label);
  return (
    <div role="note" data-kind={body.kind} className={`text-sm ${kindTone[body.kind]}`}>
      {!named && <span className="font-medium">{label}: </span>}
      <span className="whitespace-pre-wrap">{body.text}</span>
    </div>
  );
}
