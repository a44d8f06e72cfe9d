"use client";

import type { AuditAction, AuditEntry, AuditVerifyResponse } from "@arbor/core/browser";
import { type FormEvent, useState } from "react";

// The admin's audit page (docs/audit.md): the rows newest first, filters by person, action and
// time, and the chain check's verdict. The page fetches; these only show and ask. The actions and
// their meanings come as props (the page reads AUDIT_ACTIONS on the server): browser code takes
// only the browser entry of @arbor/core.

/** "tool_approved" → "Tool approved". */
export function auditActionLabel(action: string): string {
  const words = action.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Who a row says acted: the person, "System" (no actor, no address) or "Anonymous". */
export function auditActorLabel(entry: Pick<AuditEntry, "actor_name" | "actor_id" | "address">) {
  if (entry.actor_id !== null) return entry.actor_name ?? entry.actor_id;
  return entry.address === null ? "System" : "Anonymous";
}

/** The detail as `key: value` pairs, one line. */
function detailText(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" · ");
}

const cell = "px-2 py-1.5 text-left align-top";

export interface AuditLogTableProps {
  entries: readonly AuditEntry[];
  /** each action's meaning (AUDIT_ACTION_MEANINGS), shown as the action's tooltip */
  meanings?: Readonly<Record<string, string>>;
  /** filters by this person (their id) */
  onSelectActor?: (actorId: string) => void;
}

export function AuditLogTable({ entries, meanings = {}, onSelectActor }: AuditLogTableProps) {
  if (entries.length === 0) {
    return <p className="text-sm text-zinc-600 dark:text-zinc-400">No entries match.</p>;
  }
  return (
    <div className="w-full overflow-x-auto">
      <table className="w-full min-w-[48rem] border-collapse text-sm text-zinc-900 dark:text-zinc-100">
        <caption className="sr-only">Audit log, newest first</caption>
        <thead className="border-b border-zinc-300 text-xs text-zinc-500 uppercase dark:border-zinc-700 dark:text-zinc-400">
          <tr>
            <th scope="col" className={`${cell} text-right`}>
              #
            </th>
            <th scope="col" className={cell}>
              Time
            </th>
            <th scope="col" className={cell}>
              Person
            </th>
            <th scope="col" className={cell}>
              Action
            </th>
            <th scope="col" className={cell}>
              Target
            </th>
            <th scope="col" className={cell}>
              Address
            </th>
            <th scope="col" className={cell}>
              Detail
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.sequence} className="border-b border-zinc-200 dark:border-zinc-800">
              <td className={`${cell} text-right tabular-nums text-zinc-500`}>{entry.sequence}</td>
              <td className={`${cell} whitespace-nowrap tabular-nums`}>
                <time dateTime={entry.time}>
                  {entry.time.replace("T", " ").replace(/\.\d+Z$/, "Z")}
                </time>
              </td>
              <td className={cell}>
                {entry.actor_id !== null && onSelectActor !== undefined ? (
                  <button
                    type="button"
                    title={`only ${entry.actor_id}'s entries`}
                    className="text-left text-sky-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-sky-300"
                    onClick={() => onSelectActor(entry.actor_id ?? "")}
                  >
                    {auditActorLabel(entry)}
                  </button>
                ) : (
                  auditActorLabel(entry)
                )}
              </td>
              <td className={cell} title={meanings[entry.action] ?? entry.action}>
                {auditActionLabel(entry.action)}
              </td>
              <td className={`${cell} break-all font-mono text-xs`}>{entry.target}</td>
              <td className={`${cell} font-mono text-xs`}>{entry.address ?? "—"}</td>
              <td className={`${cell} break-all text-xs text-zinc-600 dark:text-zinc-400`}>
                {detailText(entry.detail)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The filters as the form holds them: empty means "any"; times as `datetime-local` values. */
export interface AuditFilterValues {
  actor: string;
  action: AuditAction | "";
  since: string;
  until: string;
}

export const NO_AUDIT_FILTERS: AuditFilterValues = { actor: "", action: "", since: "", until: "" };

export interface AuditFiltersProps {
  value: AuditFilterValues;
  /** the actions to choose from (AUDIT_ACTIONS) */
  actions: readonly AuditAction[];
  onApply: (value: AuditFilterValues) => void;
}

const field = "flex flex-col gap-1 text-xs text-zinc-600 dark:text-zinc-400";
const input =
  "rounded border border-zinc-300 bg-white px-2 py-1 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100";
const button =
  "rounded border border-zinc-300 px-3 py-1 text-sm hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";

/** Person, action and time range; applied together. The form is reset when `value` changes. */
export function AuditFilters(props: AuditFiltersProps) {
  return <AuditFiltersForm key={JSON.stringify(props.value)} {...props} />;
}

function AuditFiltersForm({ value, actions, onApply }: AuditFiltersProps) {
  const [draft, setDraft] = useState(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...draft, actor: draft.actor.trim() });
  };
  const set = (patch: Partial<AuditFilterValues>) => setDraft((d) => ({ ...d, ...patch }));
  return (
    <form
      aria-label="Audit filters"
      onSubmit={submit}
      className="flex flex-wrap items-end gap-3 text-zinc-900 dark:text-zinc-100"
    >
      <label className={field}>
        Person (id)
        <input
          className={input}
          value={draft.actor}
          placeholder="anyone"
          onChange={(e) => set({ actor: e.target.value })}
        />
      </label>
      <label className={field}>
        Action
        <select
          className={input}
          value={draft.action}
          onChange={(e) => set({ action: e.target.value as AuditAction | "" })}
        >
          <option value="">Any action</option>
          {actions.map((action) => (
            <option key={action} value={action}>
              {auditActionLabel(action)}
            </option>
          ))}
        </select>
      </label>
      <label className={field}>
        From
        <input
          className={input}
          type="datetime-local"
          value={draft.since}
          onChange={(e) => set({ since: e.target.value })}
        />
      </label>
      <label className={field}>
        Until
        <input
          className={input}
          type="datetime-local"
          value={draft.until}
          onChange={(e) => set({ until: e.target.value })}
        />
      </label>
      <button type="submit" className={button}>
        Apply
      </button>
      <button type="button" className={button} onClick={() => onApply(NO_AUDIT_FILTERS)}>
        Clear
      </button>
    </form>
  );
}

const REASONS: Record<NonNullable<AuditVerifyResponse["first_bad"]>["reason"], string> = {
  hash_mismatch: "its fields were changed after it was written",
  broken_link: "it does not follow the row before it (rows were rewritten)",
  gap: "rows before it are missing (deleted)",
};

export interface AuditVerifyResultProps {
  result: AuditVerifyResponse;
}

/** The chain check's verdict, with the head to note down elsewhere. */
export function AuditVerifyResult({ result }: AuditVerifyResultProps) {
  const head =
    result.head === null || result.head === undefined
      ? null
      : `last row #${result.head.sequence}, hash ${result.head.hash.slice(0, 16)}…`;
  if (result.ok) {
    return (
      <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
        Chain intact: {result.rows} {result.rows === 1 ? "row" : "rows"} checked
        {head === null ? "." : ` (${head}).`}
      </p>
    );
  }
  const bad = result.first_bad;
  return (
    <p role="alert" className="text-sm text-red-700 dark:text-red-400">
      Chain broken at row #{bad?.sequence}: {bad ? REASONS[bad.reason] : "unknown"} ({bad?.reason}).{" "}
      {result.rows} rows read.
    </p>
  );
}

export interface AuditPagerProps {
  /** a page before this one exists (newer rows) */
  hasNewer: boolean;
  /** the answer's next_cursor is not null (older rows) */
  hasOlder: boolean;
  onNewer: () => void;
  onOlder: () => void;
  busy?: boolean;
}

/** Newer / Older, by the list's cursor. */
export function AuditPager({ hasNewer, hasOlder, onNewer, onOlder, busy }: AuditPagerProps) {
  return (
    <nav aria-label="Audit pages" className="flex gap-2">
      <button type="button" className={button} disabled={!hasNewer || busy} onClick={onNewer}>
        ← Newer
      </button>
      <button type="button" className={button} disabled={!hasOlder || busy} onClick={onOlder}>
        Older →
      </button>
    </nav>
  );
}
