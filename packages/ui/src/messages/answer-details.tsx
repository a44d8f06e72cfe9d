"use client";

import type { ContextMessage } from "@arbor/core/browser";
import { costText } from "../format.js";

// An answer's details, folded away under it: which model answered, the tokens it used (cache
// reads and writes apart, as they are billed apart) and what that cost at list prices, or
// "no price for this model" (issue #28).

export function AnswerDetails({ message }: { message: ContextMessage }) {
  const meta = message.meta;
  const usage = meta?.usage;
  if (message.role !== "assistant" || usage === undefined || message.status === "streaming") {
    return null;
  }
  const cost = costText(usage);
  return (
    <details data-testid="answer-details" className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">
      <summary className="cursor-pointer select-none">Details</summary>
      <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5">
        {meta?.model !== undefined && (
          <>
            <dt>Model</dt>
            <dd className="break-all">{meta.model}</dd>
          </>
        )}
        <dt>Tokens</dt>
        <dd className="tabular-nums">
          {usage.input.toLocaleString("en")} in · {usage.output.toLocaleString("en")} out
          {usage.cacheRead > 0 ? ` · ${usage.cacheRead.toLocaleString("en")} cache read` : ""}
          {usage.cacheWrite > 0 ? ` · ${usage.cacheWrite.toLocaleString("en")} cache write` : ""}
        </dd>
        {cost !== undefined && (
          <>
            <dt>Cost</dt>
            <dd data-testid="answer-cost" className="tabular-nums">
              {cost}
            </dd>
          </>
        )}
      </dl>
    </details>
  );
}
