"use client";

import type { ContextMessage, MessageSearchHit, SessionSummary } from "@arbor/core/browser";
import {
  type ExportFormat,
  exportFileName,
  type SessionRowActions,
  sessionJson,
  sessionMarkdown,
  UndoToast,
} from "@arbor/ui";
import { type QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { toast } from "sonner";
import { api, errorText } from "./api";

// What the page does with a whole session: create one, delete it with ten seconds to undo,
// rename it, download it as Markdown or JSON, and search every session's messages as the user
// types.

/**
 * How long a deleted session can be brought back before the DELETE is sent, while the notice is
 * left alone: hovering it or focusing its Undo stops the clock (UndoToast).
 */
export const UNDO_DELETE_MS = 10_000;

/**
 * Hides the session from the list at once and offers Undo; the DELETE goes when the notice's
 * time is up, or at once if the page is left before (keepalive), so a delete is never silently
 * lost.
 */
export function deleteWithUndo(queryClient: QueryClient, id: string, title: string): void {
  const previous = queryClient.getQueryData<SessionSummary[]>(["sessions"]);
  queryClient.setQueryData<SessionSummary[]>(["sessions"], (list) =>
    list?.filter((s) => s.id !== id),
  );
  let done = false;
  const send = () => {
    if (done) return;
    done = true;
    window.removeEventListener("pagehide", onLeave);
    api
      .deleteSession(id)
      .catch((error: unknown) => {
        if (previous) queryClient.setQueryData(["sessions"], previous);
        toast.error(`Could not delete “${title}”`, { description: errorText(error) });
      })
      .finally(() => void queryClient.invalidateQueries({ queryKey: ["sessions"] }));
  };
  const onLeave = () => {
    if (done) return;
    done = true;
    void fetch(`/api/sessions/${encodeURIComponent(id)}`, { method: "DELETE", keepalive: true });
  };
  const undo = () => {
    if (done) return;
    done = true;
    window.removeEventListener("pagehide", onLeave);
    void queryClient.invalidateQueries({ queryKey: ["sessions"] });
    toast.success(`Kept “${title}”`);
  };
  window.addEventListener("pagehide", onLeave);
  // the notice keeps its own clock (it waits while hovered or focused): sonner's runs on
  // Infinity, and the notice dismisses itself
  toast.custom(
    (toastId) => (
      <UndoToast
        message={`Deleted “${title}”`}
        durationMs={UNDO_DELETE_MS}
        onUndo={() => {
          toast.dismiss(toastId);
          undo();
        }}
        onExpire={() => {
          toast.dismiss(toastId);
          send();
        }}
      />
    ),
    { duration: Number.POSITIVE_INFINITY, dismissible: false },
  );
}

/** Renames, exports and deletes from a row of the session list (SessionList's `rowActions`). */
export function useSessionRowActions(options: { onDeleted?: (id: string) => void } = {}) {
  const queryClient = useQueryClient();
  const { onDeleted } = options;
  return useMemo<SessionRowActions>(
    () => ({
      onRename: (id, title) => {
        api.renameSession(id, title).then(
          () =>
            Promise.all([
              queryClient.invalidateQueries({ queryKey: ["sessions"] }),
              queryClient.invalidateQueries({ queryKey: ["session", id] }),
            ]),
          (error: unknown) => toast.error("Renaming failed", { description: errorText(error) }),
        );
      },
      onExport: (id, title, format) => {
        exportSession(id, title, format).catch((error: unknown) =>
          toast.error("Exporting failed", { description: errorText(error) }),
        );
      },
      onDelete: (id, title) => {
        deleteWithUndo(queryClient, id, title);
        onDeleted?.(id);
      },
    }),
    [queryClient, onDeleted],
  );
}

/** Reads the session and its active branch's messages, then downloads them. */
export async function exportSession(id: string, title: string, format: ExportFormat) {
  const detail = await api.getSession(id);
  const { messages } = await api.getMessages(id, {
    branch: detail.active_branch_id,
    view: "full",
  });
  downloadSession(format, title, detail, messages);
}

/** Creates an empty session and opens it (the home page's and the chat's "New session"). */
export function useCreateSession() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () => api.createSession(),
    onSuccess: async ({ session_id }) => {
      toast.dismiss("create-session");
      await queryClient.invalidateQueries({ queryKey: ["sessions"] });
      router.push(`/sessions/${encodeURIComponent(session_id)}`);
    },
    // one toast, replaced by a later failure rather than stacked, with Retry (issue #27)
    onError: (error) =>
      toast.error("Could not create a session", {
        id: "create-session",
        description: errorText(error),
        // it stays until it is acted on: the Retry is for when the server is back, which may be
        // longer than a toast's few seconds
        duration: Number.POSITIVE_INFINITY,
        // Retry keeps this toast up while it tries (sonner closes a toast on its action unless
        // the click is prevented): a failure again replaces it, a success dismisses it. Closed
        // first, a failure's toast with the same id did not come back while the server was away.
        action: {
          label: "Retry",
          onClick: (event) => {
            event.preventDefault();
            create.mutate();
          },
        },
      }),
  });
  return create;
}

/** Downloads the session (its active branch, every message) as a file. */
export function downloadSession(
  format: ExportFormat,
  title: string,
  detail: unknown,
  messages: readonly ContextMessage[],
): void {
  const text =
    format === "markdown" ? sessionMarkdown(title, messages) : sessionJson(detail, messages);
  const blob = new Blob([text], {
    type: format === "markdown" ? "text/markdown;charset=utf-8" : "application/json",
  });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = exportFileName(title, format);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

/** Full-text hits for the query the user is typing (from two characters, 250 ms after typing). */
export function useMessageSearch(): {
  onQueryChange: (query: string) => void;
  hits: readonly MessageSearchHit[] | undefined;
} {
  const [typed, setTyped] = useState("");
  const [query, setQuery] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setQuery(typed.trim()), 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const search = useQuery({
    queryKey: ["search", query],
    queryFn: ({ signal }) => api.searchMessages(query, { signal }),
    enabled: query.length >= 2,
    staleTime: 5_000,
  });
  return {
    onQueryChange: setTyped,
    hits: query.length >= 2 ? search.data?.results : undefined,
  };
}
