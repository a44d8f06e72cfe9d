"use client";

import type { ContextMessage, MessageRole, MessageStatus } from "@arbor/core/browser";
import { type ReactNode, useState } from "react";
import { CopyButton } from "../copy-button.js";
import { unreachable } from "../state-label.js";
import { badgeClass, buttonClass, inputClass } from "../styles.js";
import { AnswerDetails } from "./answer-details.js";

// The frame every message card shares: who wrote it, its lifecycle status (streaming, incomplete,
// failed), and the per-message actions "Fork here" and "Edit & resend".

export function roleLabel(role: MessageRole): string {
  switch (role) {
    case "user":
      return "You";
    case "assistant":
      return "Assistant";
    case "tool":
      return "Tool";
    case "system":
      return "System";
    default:
      return unreachable(role);
  }
}

function StatusBadge({ status, error }: { status: MessageStatus; error: string | undefined }) {
  switch (status) {
    case "complete":
      return null;
    case "pending":
      return (
        <span
          className={`${badgeClass} bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300`}
        >
          Pending
        </span>
      );
    case "queued":
      return (
        <span className={`${badgeClass} bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200`}>
          Queued
        </span>
      );
    case "streaming":
      return (
        <span className={`${badgeClass} bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200`}>
          Streaming
        </span>
      );
    case "incomplete":
      return (
        <span
          className={`${badgeClass} bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200`}
          title={error}
        >
          Incomplete{error ? ` · ${error}` : ""}
        </span>
      );
    case "failed":
      return (
        <span
          className={`${badgeClass} bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200`}
          title={error}
        >
          Failed{error ? ` · ${error}` : ""}
        </span>
      );
    default:
      return unreachable(status);
  }
}

export interface CardShellProps {
  message: ContextMessage;
  children: ReactNode;
  onFork?: ((messageId: string) => void) | undefined;
  /** offered only when the card passes the message's current text */
  onEditResend?: ((messageId: string, text: string) => void) | undefined;
  editableText?: string | undefined;
  /** the message's text for "Copy"; no copy button without it */
  copyText?: string | undefined;
  /** assistant answers: answer the user's message again on a new branch (Retry when it failed) */
  onRegenerate?: ((messageId: string) => void) | undefined;
  /** the other versions of this place in the conversation: `‹ 1/2 ›` */
  versions?: VersionSwitch | undefined;
}

/** The versions of a message (messageVersions) with what choosing one does. */
export interface VersionSwitch {
  index: number;
  count: number;
  onSelect: (index: number) => void;
}

function VersionSwitcher({ versions }: { versions: VersionSwitch }) {
  const { index, count, onSelect } = versions;
  return (
    <nav aria-label="Versions" className="inline-flex items-center gap-0.5">
      <button
        type="button"
        className={buttonClass.ghost}
        aria-label="Previous version"
        disabled={index === 0}
        onClick={() => onSelect(index - 1)}
      >
        ‹
      </button>
      <span className="tabular-nums">
        {index + 1}/{count}
      </span>
      <button
        type="button"
        className={buttonClass.ghost}
        aria-label="Next version"
        disabled={index === count - 1}
        onClick={() => onSelect(index + 1)}
      >
        ›
      </button>
    </nav>
  );
}

const roleFrame: Record<MessageRole, string> = {
  user: "border-sky-200 bg-sky-50 dark:border-sky-900 dark:bg-sky-950/40",
  assistant: "border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900",
  tool: "border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900/60",
  system: "border-dashed border-zinc-300 bg-transparent dark:border-zinc-700",
};

export function CardShell({
  message,
  children,
  onFork,
  onEditResend,
  editableText,
  copyText,
  onRegenerate,
  versions,
}: CardShellProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const label = roleLabel(message.role);
  const canEdit = onEditResend !== undefined && editableText !== undefined;
  return (
    <article
      aria-label={`${label} message`}
      data-message-id={message.id}
      data-message-type={message.body.message_type}
      data-status={message.status}
      className={`group rounded-lg border p-3 text-zinc-900 dark:text-zinc-100 ${roleFrame[message.role]} ${message.status === "incomplete" || message.status === "failed" ? "border-l-4 border-l-amber-500" : ""}`}
    >
      <header className="mb-1 flex flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
        <span className="font-semibold text-zinc-700 dark:text-zinc-200">{label}</span>
        <StatusBadge status={message.status} error={message.meta?.error_message} />
        {versions !== undefined && <VersionSwitcher versions={versions} />}
        <span className="ml-auto flex gap-1 opacity-100 sm:opacity-0 sm:group-focus-within:opacity-100 sm:group-hover:opacity-100">
          {copyText !== undefined && copyText !== "" && (
            <CopyButton label="Copy message" getText={() => copyText} />
          )}
          {canEdit && draft === null && (
            <button
              type="button"
              className={buttonClass.ghost}
              onClick={() => setDraft(editableText)}
            >
              Edit &amp; resend
            </button>
          )}
          {onRegenerate && message.role === "assistant" && message.status !== "streaming" && (
            <button
              type="button"
              className={buttonClass.ghost}
              title="A new answer on a new branch; this one stays as a version"
              onClick={() => onRegenerate(message.id)}
            >
              {message.status === "failed" || message.status === "incomplete"
                ? "Retry"
                : "Regenerate"}
            </button>
          )}
          {onFork && (
            <button type="button" className={buttonClass.ghost} onClick={() => onFork(message.id)}>
              Fork here
            </button>
          )}
        </span>
      </header>
      {draft === null || !canEdit ? (
        <>
          {children}
          <AnswerDetails message={message} />
        </>
      ) : (
        <form
          className="flex flex-col gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            if (draft.trim() === "") return;
            onEditResend(message.id, draft);
            setDraft(null);
          }}
        >
          <textarea
            aria-label="Edited message"
            className={`${inputClass} min-h-20`}
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
          />
          <div className="flex justify-end gap-2">
            <button type="button" className={buttonClass.secondary} onClick={() => setDraft(null)}>
              Cancel
            </button>
            <button type="submit" className={buttonClass.primary} disabled={draft.trim() === ""}>
              Resend as new branch
            </button>
          </div>
        </form>
      )}
    </article>
  );
}
