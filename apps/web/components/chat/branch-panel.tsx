"use client";

import type {
  ContextMessage,
  MergeRequest,
  MergeResponse,
  ResolveMergeRequest,
  SessionDetail,
  UpdateBranchRequest,
} from "@arbor/core/browser";
import { BranchGraph, BranchSettings } from "@arbor/ui";
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
  onUpdateBranch: (branchId: string, patch: UpdateBranchRequest) => Promise<void>;
  onDeleteBranch: (branchId: string) => Promise<void>;
  /** what a branch without its own prompt uses: the session's base prompt or the default */
  basePrompt: string;
  defaultPipeline: readonly string[];
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

/** The branch explorer: the graph (click to switch), the merge flow, and each branch's settings. */
export function BranchPanel({
  sessionId,
  detail,
  onCheckout,
  onMerge,
  onResolve,
  onUpdateBranch,
  onDeleteBranch,
  basePrompt,
  defaultPipeline,
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
      <ul aria-label="Branches" className="flex flex-col gap-1">
        {detail.branches.map((branch) => {
          const active = branch.id === detail.active_branch_id;
          return (
            <li
              key={branch.id}
              aria-label={`Branch ${branch.name}`}
              className="flex items-center gap-2 text-sm"
            >
              <span className="min-w-0 flex-1 truncate">
                {branch.name}
                {active && <span className="ml-1 text-xs text-zinc-500">(active)</span>}
                {branch.system_prompt !== undefined && (
                  <span className="ml-1 text-xs text-violet-700 dark:text-violet-300">
                    own prompt
                  </span>
                )}
                {branch.pipeline !== undefined && (
                  <span className="ml-1 text-xs text-violet-700 dark:text-violet-300">
                    own pipeline
                  </span>
                )}
              </span>
              <BranchSettings
                branch={branch}
                active={active}
                basePrompt={basePrompt}
                defaultPipeline={defaultPipeline}
                onSave={(patch) => onUpdateBranch(branch.id, patch)}
                onDelete={() => onDeleteBranch(branch.id)}
              />
            </li>
          );
        })}
      </ul>
    </aside>
  );
}
