"use client";

import type { AuditAction } from "@arbor/core/browser";
import {
  AuditFilters,
  type AuditFilterValues,
  AuditLogTable,
  AuditPager,
  AuditVerifyResult,
  NO_AUDIT_FILTERS,
} from "@arbor/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ApiError, type AuditListQuery, api, errorText } from "@/lib/client/api";
import { AppHeader } from "../app-header";
import { AdminOnly } from "./admin-only";

// /admin/audit: the audit log (docs/audit.md) with filters by person, action and time range,
// paged by cursor, and "Verify chain". Owners and admins only: anyone else is answered 403.

const PAGE = 50;

/** The form's datetime-local values (the browser's local time) as ISO times for the API. */
function queryOf(filters: AuditFilterValues, cursor: string | undefined): AuditListQuery {
  const iso = (local: string) => (local === "" ? undefined : new Date(local).toISOString());
  return {
    limit: PAGE,
    cursor,
    actor: filters.actor || undefined,
    action: filters.action || undefined,
    since: iso(filters.since),
    until: iso(filters.until),
  };
}

export function AdminAuditView({
  actions,
  meanings,
}: {
  actions: readonly AuditAction[];
  meanings: Readonly<Record<string, string>>;
}) {
  const [filters, setFilters] = useState<AuditFilterValues>(NO_AUDIT_FILTERS);
  // the cursors of the pages before this one: [] on the newest page
  const [cursors, setCursors] = useState<Array<string | undefined>>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const page = useQuery({
    queryKey: ["admin", "audit", filters, cursor],
    queryFn: () => api.audit(queryOf(filters, cursor)),
    retry: false,
  });
  const verify = useMutation({ mutationFn: () => api.auditVerify() });
  const forbidden = page.error instanceof ApiError && page.error.code === "forbidden";

  const apply = (next: AuditFilterValues) => {
    setFilters(next);
    setCursors([]);
    setCursor(undefined);
  };

  return (
    <>
      <AppHeader title="Audit log" wide />
      <main className="mx-auto flex max-w-5xl flex-col gap-4 px-3 py-4 sm:px-4 sm:py-6">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h1 className="text-xl font-semibold">Audit log</h1>
          <Link href="/admin" className="text-sm text-sky-700 hover:underline dark:text-sky-300">
            All sessions
          </Link>
        </div>
        {forbidden ? (
          <AdminOnly />
        ) : (
          <>
            <section aria-label="Chain" className="flex flex-wrap items-center gap-3">
              <button
                type="button"
                className="rounded border border-zinc-300 px-3 py-1 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
                disabled={verify.isPending}
                onClick={() => verify.mutate()}
              >
                {verify.isPending ? "Verifying…" : "Verify chain"}
              </button>
              {verify.data !== undefined ? <AuditVerifyResult result={verify.data} /> : null}
              {verify.isError ? (
                <p role="alert" className="text-sm text-red-700 dark:text-red-400">
                  Could not verify: {errorText(verify.error)}
                </p>
              ) : null}
            </section>
            <AuditFilters value={filters} actions={actions} onApply={apply} />
            {page.isError ? (
              <p role="alert" className="text-sm text-red-700 dark:text-red-400">
                Could not load the audit log: {errorText(page.error)}
              </p>
            ) : page.isPending ? (
              <p className="text-sm text-zinc-500">Loading…</p>
            ) : (
              <AuditLogTable
                entries={page.data.entries}
                meanings={meanings}
                onSelectActor={(actor) => apply({ ...filters, actor })}
              />
            )}
            <AuditPager
              hasNewer={cursors.length > 0}
              hasOlder={page.data?.next_cursor != null}
              busy={page.isFetching}
              onNewer={() => {
                setCursor(cursors.at(-1));
                setCursors(cursors.slice(0, -1));
              }}
              onOlder={() => {
                const next = page.data?.next_cursor;
                if (next == null) return;
                setCursors([...cursors, cursor]);
                setCursor(next);
              }}
            />
          </>
        )}
      </main>
    </>
  );
}
