"use client";

import type { SessionSummary } from "@arbor/core/browser";
import { costText, formatRelativeTime, formatTokens } from "../format.js";
import { stateLabel } from "../state-label.js";

export type AdminSessionRow = SessionSummary;

export interface AdminSessionsTableProps {
  sessions: readonly AdminSessionRow[];
  /** opens the session's loop tree */
  onSelect: (sessionId: string) => void;
  selectedSessionId?: string | undefined;
  now?: Date;
}

const cell = "px-2 py-1.5 text-left align-top";

export function AdminSessionsTable({
  sessions,
  onSelect,
  selectedSessionId,
  now,
}: AdminSessionsTableProps) {
  const at = now ?? new Date();
  return (
    <div className="w-full overflow-x-auto">
      <table className="w-full min-w-[36rem] border-collapse text-sm text-zinc-900 dark:text-zinc-100">
        <caption className="sr-only">Sessions with usage and state</caption>
        <thead className="border-b border-zinc-300 text-xs text-zinc-500 uppercase dark:border-zinc-700 dark:text-zinc-400">
          <tr>
            <th scope="col" className={cell}>
              Session
            </th>
            <th scope="col" className={cell}>
              State
            </th>
            <th scope="col" className={`${cell} text-right`}>
              Messages
            </th>
            <th scope="col" className={`${cell} text-right`}>
              Tokens
            </th>
            <th scope="col" className={`${cell} text-right`}>
              Cost
            </th>
            <th scope="col" className={cell}>
              Last activity
            </th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <tr
              key={session.id}
              aria-selected={session.id === selectedSessionId}
              className="border-b border-zinc-200 aria-selected:bg-sky-50 dark:border-zinc-800 dark:aria-selected:bg-sky-950"
            >
              <th scope="row" className={`${cell} font-normal`}>
                <button
                  type="button"
                  className="text-left text-sky-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-sky-300"
                  onClick={() => onSelect(session.id)}
                >
                  {session.title}
                </button>
              </th>
              <td className={cell}>{stateLabel(session.state)}</td>
              <td className={`${cell} text-right tabular-nums`}>{session.message_count}</td>
              <td
                className={`${cell} text-right tabular-nums`}
                title={`in ${session.usage.input} · out ${session.usage.output} · cache read ${session.usage.cacheRead} · cache write ${session.usage.cacheWrite}`}
              >
                {formatTokens(session.usage.totalTokens)}
              </td>
              <td className={`${cell} text-right tabular-nums`}>{costText(session.usage)}</td>
              <td className={cell}>
                <time dateTime={session.updated_at}>
                  {formatRelativeTime(session.updated_at, at)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {sessions.length === 0 && (
        <p className="p-2 text-sm text-zinc-500 dark:text-zinc-400">No sessions yet.</p>
      )}
    </div>
  );
}
