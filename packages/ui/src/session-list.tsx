"use client";

import type { MessageSearchHit, SessionSummary } from "@arbor/core/browser";
import { type ReactNode, useId, useState } from "react";
import { costText, formatRelativeTime, formatTokens, plural } from "./format.js";
import type { ExportFormat } from "./session-export.js";
import { groupByDate } from "./session-groups.js";
import { SessionMenu } from "./session-menu.js";
import { shortStateLabel, stateTone } from "./state-label.js";
import { buttonClass, inputClass } from "./styles.js";

export interface SessionListProps {
  /** newest first, as GET /api/sessions answers */
  sessions: readonly SessionSummary[];
  activeSessionId?: string | undefined;
  onSelect: (sessionId: string) => void;
  /** for "x min ago"; defaults to the time of rendering */
  now?: Date;
  /** told the query as it is typed, so the app can search the messages too */
  onQueryChange?: ((query: string) => void) | undefined;
  /** messages matching the query (full-text), shown under the title matches */
  messageHits?: readonly MessageSearchHit[] | undefined;
  onOpenMessage?: ((sessionId: string, messageId: string) => void) | undefined;
  /** "New session" above the search (inside a chat); absent: no button */
  onNew?: (() => void) | undefined;
  /** true while the new session is being created */
  creating?: boolean | undefined;
  /** each row's menu (rename, export, delete); absent: rows have no menu */
  rowActions?: SessionRowActions | undefined;
}

/** What a row's menu does with its session; the app calls the API. */
export interface SessionRowActions {
  onRename: (sessionId: string, title: string) => void;
  onExport: (sessionId: string, title: string, format: ExportFormat) => void;
  onDelete: (sessionId: string, title: string) => void;
}

/** Case-insensitive title match; every word of the query must appear. */
export function filterSessions(
  sessions: readonly SessionSummary[],
  query: string,
): SessionSummary[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return sessions.filter((s) => {
    const title = s.title.toLowerCase();
    return words.every((word) => title.includes(word));
  });
}

export function SessionList({
  sessions,
  activeSessionId,
  onSelect,
  now,
  onQueryChange,
  messageHits,
  onOpenMessage,
  onNew,
  creating = false,
  rowActions,
}: SessionListProps) {
  const [query, setQuery] = useState("");
  const searchId = useId();
  const shown = filterSessions(sessions, query);
  const at = now ?? new Date();
  const groups = groupByDate(shown, (s) => s.updated_at, at);
  return (
    <nav aria-label="Sessions" className="flex min-w-0 flex-col gap-2">
      {onNew !== undefined && (
        <button
          type="button"
          className={`${buttonClass.primary} w-full justify-center`}
          disabled={creating}
          onClick={onNew}
        >
          {creating ? "Creating…" : "New session"}
        </button>
      )}
      <label htmlFor={searchId} className="sr-only">
        Search sessions
      </label>
      <input
        id={searchId}
        type="search"
        className={inputClass}
        placeholder="Search sessions"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          onQueryChange?.(event.target.value);
        }}
      />
      {groups.map((group) => (
        <DateGroupSection key={group.label} label={group.label}>
          {group.items.map((session) => (
            <SessionRow
              key={session.id}
              session={session}
              active={session.id === activeSessionId}
              now={at}
              onSelect={onSelect}
              actions={rowActions}
            />
          ))}
        </DateGroupSection>
      ))}
      {shown.length === 0 && (messageHits?.length ?? 0) === 0 && (
        <p className="px-2 text-sm text-zinc-500 dark:text-zinc-400">
          {sessions.length === 0 ? "No sessions yet." : `No session matches “${query}”.`}
        </p>
      )}
      {query.trim() !== "" && messageHits && messageHits.length > 0 && (
        <section aria-label="Messages found" className="flex flex-col gap-1">
          <h3 className="px-2 text-xs font-semibold uppercase tracking-wide text-zinc-500">
            In messages
          </h3>
          <ul className="flex flex-col gap-1">
            {messageHits.map((hit) => (
              <li key={`${hit.session_id}/${hit.message_id}`}>
                <button
                  type="button"
                  onClick={() => onOpenMessage?.(hit.session_id, hit.message_id)}
                  className="flex w-full flex-col gap-0.5 rounded-md px-2 py-1.5 text-left hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 dark:hover:bg-zinc-800"
                >
                  <span className="truncate text-xs font-medium text-zinc-500 dark:text-zinc-400">
                    {hit.session_title} · {hit.role === "user" ? "You" : hit.role}
                  </span>
                  <span className="line-clamp-2 text-sm text-zinc-800 dark:text-zinc-200">
                    {hit.snippet}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </nav>
  );
}

function DateGroupSection({ label, children }: { label: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-1">
      <h3
        id={headingId}
        className="px-2 pt-1 text-xs font-semibold uppercase tracking-wide text-zinc-600 dark:text-zinc-400"
      >
        {label}
      </h3>
      <ul className="flex flex-col gap-1">{children}</ul>
    </section>
  );
}

const rowMenuClass =
  "shrink-0 self-center rounded-md px-2 py-1 text-zinc-600 hover:bg-zinc-200 focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-zinc-300 dark:hover:bg-zinc-700";

function SessionRow({
  session,
  active,
  now,
  onSelect,
  actions,
}: {
  session: SessionSummary;
  active: boolean;
  now: Date;
  onSelect: (sessionId: string) => void;
  actions: SessionRowActions | undefined;
}) {
  const tone = stateTone(session.state);
  return (
    <li
      className={`flex items-stretch gap-1 rounded-md ${active ? "bg-sky-100 dark:bg-sky-950" : "hover:bg-zinc-100 dark:hover:bg-zinc-800"}`}
    >
      <button
        type="button"
        aria-current={active ? "page" : undefined}
        onClick={() => onSelect(session.id)}
        className="flex min-w-0 flex-1 flex-col gap-0.5 rounded-md px-2 py-1.5 text-left focus-visible:outline-2 focus-visible:outline-sky-500"
      >
        <span className="truncate text-sm font-medium text-zinc-900 dark:text-zinc-100">
          {session.title}
        </span>
        <span className="flex flex-wrap gap-x-2 text-xs text-zinc-600 dark:text-zinc-400">
          <span
            data-tone={tone}
            className={
              tone === "failed"
                ? "text-red-700 dark:text-red-400"
                : tone === "waiting"
                  ? "text-amber-700 dark:text-amber-300"
                  : ""
            }
          >
            {shortStateLabel(session.state)}
          </span>
          <span aria-hidden="true">·</span>
          <time dateTime={session.updated_at}>{formatRelativeTime(session.updated_at, now)}</time>
          <span aria-hidden="true">·</span>
          <span>{plural(session.message_count, "message")}</span>
          <span aria-hidden="true">·</span>
          <span>{formatTokens(session.usage.totalTokens)} tokens</span>
          {costText(session.usage) !== undefined && (
            <>
              <span aria-hidden="true">·</span>
              <span data-testid="session-cost">{costText(session.usage)}</span>
            </>
          )}
        </span>
      </button>
      {actions !== undefined && (
        <SessionMenu
          title={session.title}
          label={`Actions for “${session.title}”`}
          triggerClassName={rowMenuClass}
          onRename={(title) => actions.onRename(session.id, title)}
          onExport={(format) => actions.onExport(session.id, session.title, format)}
          onDelete={() => actions.onDelete(session.id, session.title)}
        />
      )}
    </li>
  );
}
