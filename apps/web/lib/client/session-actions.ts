"use client";

import type { ContextMessage, MessageSearchHit, SessionSummary } from "@arbor/core";
import { type ExportFormat, exportFileName, sessionJson, sessionMarkdown } from "@arbor/ui";
import { type QueryClient, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { api, errorText } from "./api";

// What the page does with a whole session: delete it with a few seconds to undo, download it as
// Markdown or JSON, and search every session's messages as the user types.

/** How long a deleted session can be brought back before the DELETE is sent. */
export const UNDO_DELETE_MS = 6_000;

/**
 * Hides the session from the list at once and offers Undo; the DELETE goes when the toast's time
 * is up, or at once if the page is left before (keepalive), so a delete is never silently lost.
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
    clearTimeout(timer);
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
  const timer = setTimeout(send, UNDO_DELETE_MS);
  window.addEventListener("pagehide", onLeave);
  toast(`Deleted “${title}”`, {
    duration: UNDO_DELETE_MS,
    action: {
      label: "Undo",
      onClick: () => {
        done = true;
        clearTimeout(timer);
        window.removeEventListener("pagehide", onLeave);
        void queryClient.invalidateQueries({ queryKey: ["sessions"] });
        toast.success(`Kept “${title}”`);
      },
    },
  });
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
