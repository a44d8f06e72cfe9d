"use client";

import { PaperclipIcon } from "../paperclip-icon.js";
import { badgeClass, buttonClass } from "../styles.js";
import { fileSize } from "./attachment-card.js";
import { LongText } from "./long-text.js";

// A message the user sent that the server has not stored yet: shown at once so nothing typed
// seems lost, marked "Sending…", held while the connection is down (it goes when it is back), and
// kept with Retry / Discard when the server refused it. The files going with the text are listed
// by name and size, so a held message says all it will send (issue #27).

export type OutgoingStatus = "sending" | "held" | "failed";

export interface OutgoingMessage {
  /** a key of the browser's own; the stored message gets its id from the server */
  key: string;
  text: string;
  status: OutgoingStatus;
  /** why the server refused it (status "failed") */
  error?: string | undefined;
  /** the files that go in the same message */
  attachments?: readonly { name: string; size: number }[] | undefined;
}

export interface OutgoingCardProps {
  message: OutgoingMessage;
  onRetry?: ((key: string) => void) | undefined;
  onDiscard?: ((key: string) => void) | undefined;
}

export function OutgoingCard({ message, onRetry, onDiscard }: OutgoingCardProps) {
  const failed = message.status === "failed";
  const held = message.status === "held";
  return (
    <article
      aria-label="You message"
      data-outgoing={message.key}
      data-status={message.status}
      aria-busy={!failed}
      className={`rounded-lg border border-sky-200 bg-sky-50 p-3 text-zinc-900 dark:border-sky-900 dark:bg-sky-950/40 dark:text-zinc-100 ${failed ? "border-l-4 border-l-red-500" : "opacity-80"}`}
    >
      <header className="mb-1 flex flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
        <span className="font-semibold text-zinc-700 dark:text-zinc-200">You</span>
        {failed ? (
          <span
            role="alert"
            className={`${badgeClass} whitespace-normal bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200`}
          >
            Not sent{message.error ? ` · ${message.error}` : ""}
          </span>
        ) : held ? (
          <span
            role="status"
            className={`${badgeClass} whitespace-normal bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200`}
          >
            Waiting for the connection · sends when it is back
          </span>
        ) : (
          <span
            className={`${badgeClass} bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300`}
          >
            Sending…
          </span>
        )}
        {(failed || held) && (
          <span className="ml-auto flex gap-1">
            {failed && onRetry && (
              <button
                type="button"
                className={buttonClass.secondary}
                onClick={() => onRetry(message.key)}
              >
                Retry
              </button>
            )}
            {onDiscard && (
              <button
                type="button"
                className={buttonClass.ghost}
                onClick={() => onDiscard(message.key)}
              >
                Discard
              </button>
            )}
          </span>
        )}
      </header>
      <LongText text={message.text} />
      {message.attachments !== undefined && message.attachments.length > 0 && (
        <ul
          aria-label="Files with this message"
          className="mt-2 flex flex-wrap gap-1.5 text-xs text-zinc-700 dark:text-zinc-300"
        >
          {message.attachments.map((file, index) => (
            <li
              // two files may share a name; their order is fixed while the message waits
              // biome-ignore lint/suspicious/noArrayIndexKey: the list never reorders
              key={`${index}-${file.name}`}
              className="inline-flex max-w-full items-center gap-1 rounded-md border border-sky-200 bg-white px-2 py-0.5 dark:border-sky-900 dark:bg-zinc-900"
            >
              <PaperclipIcon />
              <span className="truncate font-mono">{file.name}</span>
              <span className="shrink-0 text-zinc-500 dark:text-zinc-400">
                {fileSize(file.size)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}
