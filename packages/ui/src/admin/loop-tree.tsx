"use client";

import type { CostedUsage, LoopStatus, LoopTreeLoop } from "@arbor/core/browser";
import { costText, formatDuration, formatTokens, plural } from "../format.js";
import { unreachable } from "../state-label.js";
import { badgeClass, buttonClass } from "../styles.js";
import { buildLoopTree, type LoopTreeNode, loopDuration } from "./build-loop-tree.js";

const statusClass: Record<LoopStatus, string> = {
  pending: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  running: "bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200",
  completed: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200",
  error: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
  aborted: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200",
};

function continuationLabel(loop: LoopTreeLoop): string | undefined {
  const kind = loop.continuation_kind;
  if (!kind) return undefined;
  switch (kind.type) {
    case "default":
      return "continuation";
    case "rerun":
      return `rerun · ${kind.tag}`;
    case "branch":
      return `branch · ${kind.tag}`;
    default:
      return unreachable(kind);
  }
}

interface NodeProps {
  node: LoopTreeNode;
  selectedLoopId: string | undefined;
  onSelectLoop: (loopId: string) => void;
  /** set inside a parallel group: whether this branch won the evaluation */
  groupWinner?: boolean | undefined;
}

function LoopItem({ node, selectedLoopId, onSelectLoop, groupWinner }: NodeProps) {
  switch (node.kind) {
    case "loop": {
      const { loop } = node;
      const duration = loopDuration(loop);
      const continuation = continuationLabel(loop);
      const selected = loop.loop_id === selectedLoopId;
      return (
        <li
          aria-label={`Loop ${loop.loop_id}`}
          data-status={loop.status}
          className="flex flex-col gap-1"
        >
          <div
            className={`flex flex-wrap items-center gap-x-2 gap-y-1 rounded-md border px-2 py-1.5 text-sm ${selected ? "border-sky-500 bg-sky-50 dark:border-sky-400 dark:bg-sky-950" : "border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"}`}
          >
            <span className={`${badgeClass} ${statusClass[loop.status]}`}>{loop.status}</span>
            <code className="font-mono text-xs break-all">{loop.loop_id}</code>
            {groupWinner === true && (
              <span
                className={`${badgeClass} bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-200`}
              >
                selected
              </span>
            )}
            {continuation && <span className="text-xs text-zinc-500">{continuation}</span>}
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              {loop.agent_id}
              {loop.config ? ` · ${loop.config.model}` : ""}
            </span>
            {loop.started_by && (
              <span className="text-xs text-zinc-600 dark:text-zinc-400">
                started by {loop.started_by.name}
              </span>
            )}
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              {duration === undefined ? "running" : formatDuration(duration)} ·{" "}
              {plural(loop.turns, "turn")} · {formatTokens(loop.usage.totalTokens)} tokens
              {costText(loop.usage) !== undefined && (
                <span data-testid="loop-cost"> · {costText(loop.usage)}</span>
              )}
            </span>
            {loop.error && (
              <span className="text-xs text-red-700 dark:text-red-400">{loop.error}</span>
            )}
            <button
              type="button"
              className={`${buttonClass.ghost} ml-auto`}
              aria-label={`Messages of loop ${loop.loop_id}`}
              onClick={() => onSelectLoop(loop.loop_id)}
            >
              Messages
            </button>
          </div>
          {node.children.length > 0 && (
            <ul className="ml-3 flex flex-col gap-1 border-l border-zinc-300 pl-3 dark:border-zinc-700">
              {node.children.map((child) => (
                <LoopItem
                  key={child.kind === "loop" ? child.loop.loop_id : child.groupId}
                  node={child}
                  selectedLoopId={selectedLoopId}
                  onSelectLoop={onSelectLoop}
                />
              ))}
            </ul>
          )}
        </li>
      );
    }
    case "parallel":
      return (
        <li aria-label={`Parallel group ${node.groupId}`} className="flex flex-col gap-1">
          <span className="text-xs font-semibold text-violet-700 dark:text-violet-300">
            Parallel · {plural(node.children.length, "branch", "branches")}
          </span>
          <ul className="ml-3 flex flex-col gap-1 border-l-2 border-dashed border-violet-300 pl-3 dark:border-violet-800">
            {node.children.map((child) => (
              <LoopItem
                key={child.loop.loop_id}
                node={child}
                selectedLoopId={selectedLoopId}
                onSelectLoop={onSelectLoop}
                groupWinner={child.loop.loop_id === node.selectedLoopId}
              />
            ))}
          </ul>
        </li>
      );
    default:
      return unreachable(node);
  }
}

export interface LoopTreeProps {
  loops: readonly LoopTreeLoop[];
  /** the whole tree's usage (every loop: sub-agents, folds, candidates, the judge), with its cost */
  total?: CostedUsage | undefined;
  /** shows the messages a loop produced */
  onSelectLoop: (loopId: string) => void;
  selectedLoopId?: string | undefined;
}

export function LoopTree({ loops, total, onSelectLoop, selectedLoopId }: LoopTreeProps) {
  const tree = buildLoopTree(loops);
  if (tree.length === 0) {
    return <p className="text-sm text-zinc-500 dark:text-zinc-400">No loops recorded.</p>;
  }
  return (
    <div className="flex flex-col gap-2">
      {total !== undefined && (
        <p
          data-testid="loop-tree-total"
          className="text-xs text-zinc-600 tabular-nums dark:text-zinc-400"
        >
          Whole tree: {plural(loops.length, "loop")} · {formatTokens(total.totalTokens)} tokens ·{" "}
          {costText(total)}
        </p>
      )}
      <LoopList tree={tree} selectedLoopId={selectedLoopId} onSelectLoop={onSelectLoop} />
    </div>
  );
}

function LoopList({
  tree,
  selectedLoopId,
  onSelectLoop,
}: {
  tree: LoopTreeNode[];
  selectedLoopId: string | undefined;
  onSelectLoop: (loopId: string) => void;
}) {
  return (
    <ul aria-label="Loop tree" className="flex flex-col gap-1">
      {tree.map((node) => (
        <LoopItem
          key={node.kind === "loop" ? node.loop.loop_id : node.groupId}
          node={node}
          selectedLoopId={selectedLoopId}
          onSelectLoop={onSelectLoop}
        />
      ))}
    </ul>
  );
}
