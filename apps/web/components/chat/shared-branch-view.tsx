"use client";

import type { ContextState } from "@arbor/core/browser";
import { Skeleton } from "@arbor/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { ApiError, api, errorText } from "@/lib/client/api";
import { buttonClass } from "../styles";
import { Transcript } from "./transcript";

// The page of a read-only link: the linked branch through the chat's own transcript, with no
// actions on its cards (no callbacks), no composer, and "Fork into my sessions", which copies the
// branch into a new session of the caller's own and opens it.

const IDLE: ContextState = { type: "Idle" };
const NO_CALLBACKS = {
  onFork: undefined,
  onEditResend: undefined,
  onToolDecisions: undefined,
  onNestedDecisions: undefined,
  onApprovePlan: undefined,
  onAnswer: undefined,
  onOpenFile: undefined,
  onRegenerate: undefined,
};

export function SharedBranchView({ token }: { token: string }) {
  const router = useRouter();
  const [forking, setForking] = useState(false);
  const [forkError, setForkError] = useState<string | undefined>(undefined);
  const shared = useQuery({
    queryKey: ["link", token],
    queryFn: () => api.openLink(token),
    retry: (failures, error) =>
      !(error instanceof ApiError && error.code === "not_found") && failures < 1,
  });
  const title = shared.data?.session_title;
  useEffect(() => {
    document.title = title ? `${title} (shared) · Arbor` : "Arbor";
  }, [title]);

  if (shared.error instanceof ApiError && shared.error.code === "not_found") {
    return (
      <main className="mx-auto flex max-w-xl flex-col gap-3 p-6">
        <h1 className="text-lg font-semibold">Link not found</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          This link does not exist, was revoked or has expired.{" "}
          <Link href="/">Back to the sessions</Link>
        </p>
      </main>
    );
  }
  const data = shared.data;
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="sticky top-0 z-20 border-b border-zinc-200 bg-white/95 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/95">
        <div className="mx-auto flex max-w-3xl flex-wrap items-center gap-2 px-3 py-2 sm:px-4">
          <div className="min-w-0 flex-1">
            <h1 className="truncate text-base font-medium">{data?.session_title ?? "Loading…"}</h1>
            {data && (
              <p className="text-xs text-zinc-500 dark:text-zinc-400">
                Branch {data.branch_name}, shared read-only by {data.shared_by.name}
                {data.expires_at !== null
                  ? ` until ${new Date(data.expires_at).toLocaleString()}`
                  : ""}
              </p>
            )}
          </div>
          <button
            type="button"
            className={buttonClass.primary}
            disabled={data === undefined || forking}
            onClick={() => {
              setForking(true);
              setForkError(undefined);
              api.forkLink(token).then(
                (fork) => router.push(`/sessions/${encodeURIComponent(fork.session_id)}`),
                (error: unknown) => {
                  setForking(false);
                  setForkError(errorText(error));
                },
              );
            }}
          >
            Fork into my sessions
          </button>
        </div>
        {forkError !== undefined && (
          <p role="alert" className="mx-auto max-w-3xl px-4 pb-2 text-sm text-red-700">
            {forkError}
          </p>
        )}
      </header>
      <main
        className="mx-auto w-full max-w-3xl flex-1 px-3 py-4 sm:px-4"
        aria-label="Shared branch"
      >
        {shared.error &&
        !(shared.error instanceof ApiError && shared.error.code === "not_found") ? (
          <p role="alert" className="text-sm text-red-700">
            {errorText(shared.error)}
          </p>
        ) : data === undefined ? (
          <Skeleton label="Loading the shared branch" rows={4} />
        ) : (
          <Transcript
            sessionId=""
            messages={data.messages}
            fullMessages={data.messages}
            optimizations={[]}
            view="full"
            streams={{}}
            announced={[]}
            activeBranchId={data.branch_id}
            state={IDLE}
            agentMode="act"
            callbacks={NO_CALLBACKS}
          />
        )}
      </main>
    </div>
  );
}
