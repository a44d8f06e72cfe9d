"use client";

import { SessionList, Skeleton } from "@arbor/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef } from "react";
import { toast } from "sonner";
import { api, errorText } from "@/lib/client/api";
import {
  useCreateSession,
  useMessageSearch,
  useSessionRowActions,
} from "@/lib/client/session-actions";
import { useHydrated } from "@/lib/client/use-hydrated";
import { AppHeader } from "./app-header";
import { ModelBadge, type ModelSummary } from "./model-badge";
import { SkipLink } from "./skip-link";
import { buttonClass } from "./styles";
import { WorkspaceFolder } from "./workspace-folder";

export function HomeView({ model, workspace }: { model: ModelSummary; workspace: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => api.listSessions() });
  const create = useCreateSession();
  const rowActions = useSessionRowActions();
  const importInput = useRef<HTMLInputElement>(null);
  const importFile = useMutation({
    mutationFn: async (file: File) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(await file.text());
      } catch {
        throw new Error(`${file.name} is not JSON: choose a file written by Export › JSON.`);
      }
      return api.importSession(parsed);
    },
    onSuccess: async ({ session_id, message_count }) => {
      toast.success(`Imported ${message_count} message${message_count === 1 ? "" : "s"}.`);
      await queryClient.invalidateQueries({ queryKey: ["sessions"] });
      router.push(`/sessions/${encodeURIComponent(session_id)}`);
    },
    onError: (error) => toast.error(`Could not import the session: ${errorText(error)}`),
  });
  const list = sessions.data ?? [];
  const search = useMessageSearch();

  return (
    <>
      {/* the first Tab stop: past the header's links to the page's own content */}
      <SkipLink target="sessions">Skip to sessions</SkipLink>
      <AppHeader brandHeading />
      <main
        id="sessions"
        tabIndex={-1}
        className="mx-auto flex max-w-3xl flex-col gap-4 px-3 py-4 focus:outline-none sm:px-4 sm:py-6"
      >
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 className="text-xl font-semibold">Sessions</h2>
          <div className="flex items-center gap-2">
            <button
              type="button"
              className={buttonClass.primary}
              disabled={!hydrated || create.isPending}
              onClick={() => create.mutate()}
            >
              {create.isPending ? "Creating…" : "New session"}
            </button>
            <button
              type="button"
              className={buttonClass.secondary}
              disabled={!hydrated || importFile.isPending}
              onClick={() => importInput.current?.click()}
              title="A session file written by Export › JSON"
            >
              {importFile.isPending ? "Importing…" : "Import…"}
            </button>
            <input
              ref={importInput}
              type="file"
              accept="application/json,.json"
              aria-label="Session file to import"
              className="sr-only"
              tabIndex={-1}
              onChange={(event) => {
                const file = event.target.files?.[0];
                event.target.value = "";
                if (file) importFile.mutate(file);
              }}
            />
          </div>
        </div>
        <ModelBadge model={model} />
        <WorkspaceFolder path={workspace} />
        {importFile.isError && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            Could not import the session: {errorText(importFile.error)}
          </p>
        )}
        {/* only when there is no list to show: a refetch that fails keeps the loaded list, and
            the action that failed says so itself (one place per error, 0055) */}
        {sessions.isError && sessions.data === undefined && (
          <div
            role="alert"
            className="flex flex-wrap items-center gap-2 text-sm text-red-700 dark:text-red-400"
          >
            <span className="min-w-0 flex-1">
              Could not load the sessions: {errorText(sessions.error)}
            </span>
            <button
              type="button"
              className={buttonClass.secondary}
              disabled={sessions.isFetching}
              onClick={() => void sessions.refetch()}
            >
              {sessions.isFetching ? "Retrying…" : "Retry"}
            </button>
          </div>
        )}
        {sessions.isPending ? (
          <Skeleton label="Loading sessions" shape="lines" rows={3} />
        ) : list.length === 0 && !sessions.isError ? (
          <section
            aria-label="Getting started"
            className="flex flex-col gap-2 rounded-xl border border-dashed border-zinc-300 p-6 text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-300"
          >
            <h3 className="text-base font-semibold text-zinc-900 dark:text-zinc-100">
              Start your first session
            </h3>
            <p>
              A session is one conversation with the agent. It can read and search the files of this
              workspace, propose a plan, and run tools once you approve them.
            </p>
            <ol className="ml-5 list-decimal space-y-1">
              <li>
                Press <strong>New session</strong>.
              </li>
              <li>
                Ask something, e.g. <em>“list the files”</em>, and watch the answer stream in.
              </li>
              <li>
                Approve or deny the tools it wants to run; fork the conversation to try ideas.
              </li>
            </ol>
            <p>
              Press <kbd className="rounded border px-1 font-mono text-xs">?</kbd> any time for the
              keyboard shortcuts.
            </p>
          </section>
        ) : (
          <SessionList
            sessions={list}
            onSelect={(id) => router.push(`/sessions/${encodeURIComponent(id)}`)}
            onQueryChange={search.onQueryChange}
            messageHits={search.hits}
            onOpenMessage={(id, messageId) =>
              router.push(
                `/sessions/${encodeURIComponent(id)}?message=${encodeURIComponent(messageId)}`,
              )
            }
            rowActions={rowActions}
          />
        )}
      </main>
    </>
  );
}
