"use client";

import type {
  ContextMessage,
  MergeRequest,
  MergeResponse,
  ResolveMergeRequest,
  SessionDetail,
} from "@arbor/core";
import { BranchGraph } from "@arbor/ui";
import { useQueries } from "@tanstack/react-query";
import { useMemo } from "react";
import { api } from "@/lib/client/api";
import { buttonClass } from "../styles";

export interface BranchPanelProps {
  sessionId: string;
  detail: SessionDetail;
  onCheckout: (branchId: string) => void;
  onMerge: (request: MergeRequest) => Promise<MergeResponse>;
  onResolve: (mergeId: string, request: ResolveMergeRequest) => Promise<MergeResponse>;
  onClose: () => void;
  /** shown as a full-height sheet (tablets and phones): the graph takes the height there is */
  sheet?: boolean;
}

/** The pending merge as the graph's "Continue pending merge" expects it. */
function pendingMergeOf(detail: SessionDetail): MergeResponse | undefined {
  const pending = detail.pending_merges[0];
  if (!pending) return undefined;
  return pending.strategy === "rebase"
    ? { merge_id: pending.merge_id, status: "conflicts", conflicts: pending.conflicts ?? [] }
    : {
        merge_id: pending.merge_id,
        status: "needs_confirmation",
        warnings: pending.warnings ?? [],
      };
}

/** The branch explorer: the graph (click to switch) and the merge flow. */
export function BranchPanel({
  sessionId,
  detail,
  onCheckout,
  onMerge,
  onResolve,
  onClose,
  sheet = false,
}: BranchPanelProps) {
  // The merge dialog names messages of every branch; the API lists messages per branch.
  const perBranch = useQueries({
    queries: detail.branches.map((branch) => ({
      queryKey: ["messages", sessionId, branch.id, "full"],
      queryFn: () => api.getMessages(sessionId, { branch: branch.id, view: "full" }),
    })),
  });
  const pool = useMemo(() => {
    const seen = new Map<string, ContextMessage>();
    for (const result of perBranch) {
      for (const message of result.data?.messages ?? []) seen.set(message.id, message);
    }
    return [...seen.values()];
  }, [perBranch]);

  return (
    <aside
      aria-label="Branch explorer"
      className={`flex flex-col gap-2 ${sheet ? "min-h-0 flex-1" : ""} rounded-xl border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900`}
    >
      <div className="flex items-center justify-between">
        <span className="text-xs text-zinc-500 dark:text-zinc-400">
          Click a branch to switch to it.
        </span>
        <button type="button" className={buttonClass.ghost} onClick={onClose}>
          Close
        </button>
      </div>
      <BranchGraph
        // React Flow fits the view once, on mount; a new set of branches remounts it to refit
        key={detail.branches.map((b) => b.id).join(" ")}
        branches={detail.branches}
        currentBranchId={detail.active_branch_id}
        onSwitch={onCheckout}
        messages={pool}
        onMerge={onMerge}
        onResolve={onResolve}
        pendingMerge={pendingMergeOf(detail)}
        className={sheet ? "h-[calc(100dvh-6rem)] min-h-72" : "h-72 lg:h-[28rem]"}
      />
    </aside>
  );
}
