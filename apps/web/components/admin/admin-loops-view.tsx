"use client";

import type { ContextMessage, LoopTreeLoop } from "@arbor/core/browser";
import { LoopTree, messagePreview } from "@arbor/ui";
import { useQueries, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { ApiError, api, errorText } from "@/lib/client/api";
import { AppHeader } from "../app-header";
import { AdminOnly } from "./admin-only";

// One session's loop tree. Choosing a loop lists the transcript messages it produced (matched by
// meta.loop_id over every branch), each a link into the chat with that message highlighted.

function LoopMessages({
  sessionId,
  loop,
  messages,
}: {
  sessionId: string;
  loop: LoopTreeLoop;
  messages: readonly ContextMessage[];
}) {
  const produced = messages.filter((m) => m.meta?.loop_id === loop.loop_id);
  return (
    <section
      aria-label={`Messages of loop ${loop.loop_id}`}
      className="flex flex-col gap-2 rounded-xl border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h2 className="text-sm font-semibold">
        Messages of <code className="font-mono text-xs">{loop.loop_id}</code>
      </h2>
      {produced.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          No transcript message names this loop
          {loop.messages.length > 0 ? ` (it exchanged ${loop.messages.length} with the model)` : ""}
          .
        </p>
      ) : (
        <ul className="flex flex-col gap-1">
          {produced.map((message) => (
            <li key={message.id}>
              <Link
                href={`/sessions/${encodeURIComponent(sessionId)}?message=${encodeURIComponent(message.id)}`}
                className="block rounded-md px-2 py-1 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800"
              >
                <span className="mr-2 text-xs text-zinc-500">{message.role}</span>
                <span className="text-sky-700 underline-offset-2 hover:underline dark:text-sky-300">
                  {messagePreview(message)}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A processor's time: most take well under a millisecond. */
const ms = (value: number) => `${value < 10 ? value.toFixed(2) : Math.round(value)} ms`;

/** The message pipeline's work on each user message: its processors' times, in order. */
function MessageProcessing({
  sessionId,
  messages,
}: {
  sessionId: string;
  messages: readonly ContextMessage[];
}) {
  const processed = messages.filter((m) => m.meta?.pipeline !== undefined);
  if (processed.length === 0) return null;
  return (
    <section
      aria-label="Message processing"
      className="flex flex-col gap-2 rounded-xl border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h2 className="text-sm font-semibold">Message processing</h2>
      <ul className="flex flex-col gap-1">
        {processed.map((message) => {
          const pipeline = message.meta?.pipeline;
          const total = pipeline?.processors.reduce((sum, p) => sum + p.ms, 0) ?? 0;
          return (
            <li key={message.id} className="flex flex-col gap-0.5 text-sm">
              <Link
                href={`/sessions/${encodeURIComponent(sessionId)}?message=${encodeURIComponent(message.id)}`}
                className="truncate text-sky-700 underline-offset-2 hover:underline dark:text-sky-300"
              >
                {messagePreview(message)}
              </Link>
              <span className="text-xs text-zinc-600 dark:text-zinc-400">
                {pipeline?.processors.map((p) => `${p.processor} ${ms(p.ms)}`).join(" · ")} (total{" "}
                {ms(total)})
                {pipeline?.completed_by ? ` · completed by ${pipeline.completed_by}` : ""}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export function AdminLoopsView({ sessionId }: { sessionId: string }) {
  const [selected, setSelected] = useState<string | undefined>();
  const tree = useQuery({
    queryKey: ["admin", "loops", sessionId],
    queryFn: () => api.adminLoops(sessionId),
    retry: false,
  });
  const detail = useQuery({
    queryKey: ["session", sessionId],
    queryFn: () => api.getSession(sessionId),
  });
  const perBranch = useQueries({
    queries: (detail.data?.branches ?? []).map((branch) => ({
      queryKey: ["messages", sessionId, branch.id, "full"],
      queryFn: () => api.getMessages(sessionId, { branch: branch.id, view: "full" }),
    })),
  });
  const messages = useMemo(() => {
    const seen = new Map<string, ContextMessage>();
    for (const result of perBranch) {
      for (const message of result.data?.messages ?? []) seen.set(message.id, message);
    }
    return [...seen.values()];
  }, [perBranch]);

  const forbidden = tree.error instanceof ApiError && tree.error.code === "forbidden";
  const loops = tree.data?.loops ?? [];
  const selectedLoop = loops.find((loop) => loop.loop_id === selected);

  return (
    <>
      <AppHeader title="Admin" wide />
      <main className="mx-auto flex max-w-5xl flex-col gap-4 px-3 py-4 sm:px-4 sm:py-6">
        <nav aria-label="Breadcrumb" className="text-sm">
          <Link href="/admin" className="text-sky-700 hover:underline dark:text-sky-300">
            All sessions
          </Link>
          <span className="text-zinc-400"> / </span>
          <Link
            href={`/sessions/${encodeURIComponent(sessionId)}`}
            className="text-sky-700 hover:underline dark:text-sky-300"
          >
            Open the chat
          </Link>
        </nav>
        <h1 className="text-xl font-semibold break-words">
          Loop tree · {detail.data?.title ?? sessionId}
        </h1>
        {forbidden ? (
          <AdminOnly />
        ) : tree.isError ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            Could not load the loop tree: {errorText(tree.error)}
          </p>
        ) : tree.isPending ? (
          <p className="text-sm text-zinc-500">Loading…</p>
        ) : (
          <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
            <LoopTree
              loops={loops}
              total={tree.data?.usage}
              selectedLoopId={selected}
              onSelectLoop={setSelected}
            />
            {selectedLoop ? (
              <LoopMessages sessionId={sessionId} loop={selectedLoop} messages={messages} />
            ) : (
              loops.length > 0 && (
                <p className="text-sm text-zinc-600 dark:text-zinc-400">
                  Choose “Messages” on a loop to see what it produced.
                </p>
              )
            )}
          </div>
        )}
        <MessageProcessing sessionId={sessionId} messages={messages} />
      </main>
    </>
  );
}
