"use client";

import { AdminSessionsTable } from "@arbor/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { ApiError, api, errorText } from "@/lib/client/api";
import { AppHeader } from "../app-header";
import { AdminOnly } from "./admin-only";

export function AdminSessionsView() {
  const router = useRouter();
  const sessions = useQuery({
    queryKey: ["admin", "sessions"],
    queryFn: () => api.adminSessions(),
    retry: false,
  });
  const forbidden = sessions.error instanceof ApiError && sessions.error.code === "forbidden";

  return (
    <>
      <AppHeader title="Admin" wide />
      <main className="mx-auto flex max-w-5xl flex-col gap-4 px-3 py-4 sm:px-4 sm:py-6">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h1 className="text-xl font-semibold">All sessions</h1>
          <div className="flex items-center gap-3">
            <Link
              href="/admin/people"
              className="text-sm text-sky-700 hover:underline dark:text-sky-300"
            >
              People
            </Link>
            <Link
              href="/admin/audit"
              className="text-sm text-sky-700 hover:underline dark:text-sky-300"
            >
              Audit log
            </Link>
            <Link
              href="/settings/providers"
              className="text-sm text-sky-700 hover:underline dark:text-sky-300"
            >
              Model providers
            </Link>
          </div>
        </div>
        {forbidden ? (
          <AdminOnly />
        ) : sessions.isError ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            Could not load the sessions: {errorText(sessions.error)}
          </p>
        ) : sessions.isPending ? (
          <p className="text-sm text-zinc-500">Loading…</p>
        ) : sessions.data.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">No sessions yet.</p>
        ) : (
          <AdminSessionsTable
            sessions={sessions.data}
            onSelect={(id) => router.push(`/admin/sessions/${encodeURIComponent(id)}`)}
          />
        )}
      </main>
    </>
  );
}
