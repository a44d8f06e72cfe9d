"use client";

import type { ContextMessage, OptimizationView } from "@arbor/core/browser";
import * as Collapsible from "@radix-ui/react-collapsible";
import { type ReactNode, useState } from "react";
import { formatTokens } from "./format.js";
import { MessageCard } from "./messages/message-card.js";

/** "History optimized · 120k → 18k tokens · 84 → 6 messages" */
export function optimizationLabel(view: OptimizationView): string {
  return `History optimized · ${formatTokens(view.tokens_before)} → ${formatTokens(view.tokens_after)} tokens · ${view.messages_before} → ${view.messages_after} messages`;
}

/** Who made a summary: "anthropic-messages/claude-…", "the extractive summarizer" (and why). */
function madeBy(data: Record<string, unknown>): string {
  const model = typeof data.model === "string" ? data.model : undefined;
  if (data.summarizer === "llm" && model) return model;
  if (data.summarizer === "extractive") {
    const reason = typeof data.fallback_reason === "string" ? data.fallback_reason : undefined;
    if (reason === undefined) return "the extractive summarizer";
    const short = reason.length > 80 ? `${reason.slice(0, 79)}…` : reason;
    return `the extractive summarizer (the model's summary failed: ${short})`;
  }
  return typeof data.summarizer === "string" ? data.summarizer : "a summarizer";
}

/**
 * One line per summary this optimization made (who made it, what it replaced), then the masked
 * tool outputs; from its new messages as the view shows them. Exported for tests.
 */
export function summaryLines(messages: readonly ContextMessage[]): string[] {
  const lines: string[] = [];
  let masked = 0;
  for (const message of messages) {
    const body = message.body;
    if (body.message_type === "tool_result") masked++;
    if (body.message_type !== "system_control" || body.kind !== "summary") continue;
    const data = body.data ?? {};
    // an earlier summary kept without the files it re-read: not a new summary
    if (data.files_dropped_from !== undefined) continue;
    const count = typeof data.replaced_messages === "number" ? data.replaced_messages : undefined;
    const tokens = typeof data.replaced_tokens === "number" ? data.replaced_tokens : undefined;
    const replaced = [
      count === undefined ? undefined : `${count} message${count === 1 ? "" : "s"}`,
      tokens === undefined ? undefined : `${formatTokens(tokens)} tokens`,
    ].filter((part) => part !== undefined);
    lines.push(
      `Summary by ${madeBy(data)}${replaced.length > 0 ? ` · replaced ${replaced.join(", ")}` : ""}`,
    );
  }
  if (masked > 0) {
    lines.push(
      `${masked} old tool output${masked === 1 ? "" : "s"} masked (the calls stay; the model calls again to see them)`,
    );
  }
  return lines;
}

/** The text of each summary this optimization made: what the model reads instead of the originals. */
export function summaryTexts(messages: readonly ContextMessage[]): { id: string; text: string }[] {
  return messages.flatMap((message) => {
    const body = message.body;
    if (body.message_type !== "system_control" || body.kind !== "summary") return [];
    if (body.data?.files_dropped_from !== undefined) return [];
    return body.text.trim() === "" ? [] : [{ id: message.id, text: body.text }];
  });
}

export interface OptimizationDividerProps {
  view: OptimizationView;
  /** the summaries and masked tool outputs this optimization made, as the view shows them */
  newMessages?: readonly ContextMessage[];
  /** the messages this optimization summarized or dropped, in transcript order */
  originalMessages: readonly ContextMessage[];
  /** how to draw an original message; read-only cards by default */
  renderMessage?: (message: ContextMessage) => ReactNode;
  /**
   * the originals are in the transcript already (the full history): the divider marks where the
   * optimization cut and shows the summary, without a second copy of the originals
   */
  originalsShown?: boolean;
}

/** A rule across the transcript where history was optimized; expands to what the model no longer sees. */
export function OptimizationDivider({
  view,
  newMessages = [],
  originalMessages,
  renderMessage = (message) => <MessageCard message={message} />,
  originalsShown = false,
}: OptimizationDividerProps) {
  const [open, setOpen] = useState(false);
  const label = optimizationLabel(view);
  const lines = summaryLines(newMessages);
  const texts = summaryTexts(newMessages);
  const summaries = texts.length > 0 && (
    <div className="mx-auto mt-2 flex max-w-2xl flex-col gap-2">
      {texts.map((summary) => (
        <figure
          key={summary.id}
          aria-label="Summary the model reads"
          data-message-id={summary.id}
          className="rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 text-sm text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200"
        >
          <figcaption className="mb-1 text-xs font-medium text-zinc-500 dark:text-zinc-400">
            {originalsShown
              ? "The model reads this summary instead of the messages above"
              : "The model reads this summary instead of the earlier messages"}
          </figcaption>
          <p className="max-h-60 overflow-y-auto whitespace-pre-wrap break-words">{summary.text}</p>
        </figure>
      ))}
    </div>
  );
  if (originalsShown) {
    return (
      <section aria-label="History optimization" data-optimization-id={view.id} className="my-3">
        <div className="flex items-center gap-2">
          <span aria-hidden="true" className="h-px flex-1 bg-zinc-300 dark:bg-zinc-700" />
          <span className="max-w-full rounded-full border border-zinc-300 px-3 py-1 text-center text-xs text-zinc-600 dark:border-zinc-700 dark:text-zinc-300">
            {label}
          </span>
          <span aria-hidden="true" className="h-px flex-1 bg-zinc-300 dark:bg-zinc-700" />
        </div>
        {lines.length > 0 && (
          <ul
            aria-label="How it was optimized"
            className="mt-1 text-center text-xs text-zinc-500 dark:text-zinc-400"
          >
            {lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
        {summaries}
      </section>
    );
  }
  return (
    <Collapsible.Root open={open} onOpenChange={setOpen} asChild>
      <section aria-label="History optimization" data-optimization-id={view.id} className="my-3">
        <div className="flex items-center gap-2">
          <span aria-hidden="true" className="h-px flex-1 bg-zinc-300 dark:bg-zinc-700" />
          <Collapsible.Trigger className="max-w-full rounded-full border border-zinc-300 px-3 py-1 text-center text-xs text-zinc-600 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800">
            {label}
            <span className="ml-1 text-zinc-400">
              {open ? "· hide originals" : `· show ${originalMessages.length} originals`}
            </span>
          </Collapsible.Trigger>
          <span aria-hidden="true" className="h-px flex-1 bg-zinc-300 dark:bg-zinc-700" />
        </div>
        {lines.length > 0 && (
          <ul
            aria-label="How it was optimized"
            className="mt-1 text-center text-xs text-zinc-500 dark:text-zinc-400"
          >
            {lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
        {summaries}
        <Collapsible.Content
          aria-label="Original messages"
          role="region"
          className="mt-2 flex flex-col gap-2 border-l-2 border-zinc-300 pl-3 opacity-80 dark:border-zinc-700"
        >
          {originalMessages.map((message) => (
            <div key={message.id}>{renderMessage(message)}</div>
          ))}
        </Collapsible.Content>
      </section>
    </Collapsible.Root>
  );
}
