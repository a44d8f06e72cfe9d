"use client";

import type {
  Branch,
  ContextMessage,
  MergeRequest,
  MergeResponse,
  ResolveMergeRequest,
} from "@arbor/core/browser";
import {
  Background,
  Controls,
  Handle,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
} from "@xyflow/react";
import { useMemo, useState } from "react";
import { plural } from "../format.js";
import { messagePreview } from "../messages/preview.js";
import { buttonClass } from "../styles.js";
import {
  mergeHandleId,
  PARENT_IN_HANDLE,
  PARENT_OUT_HANDLE,
  toFlowEdge,
} from "./branch-flow-edges.js";
import {
  BRANCH_NODE_SIZE,
  type BranchLayoutNode,
  FORK_NODE_SIZE,
  layoutBranches,
  VERSIONS_NODE,
  versionsNodeSize,
} from "./layout-branches.js";
import { MergeDialog, mergeDefaults } from "./merge-dialog.js";

// The session's branches as a graph (React Flow, laid out by dagre). The app must load
// "@xyflow/react/dist/style.css" once. Nodes are buttons: clicking a branch switches to it.

type BranchNodeData = {
  branch: Branch;
  current: boolean;
  onSwitch: (branchId: string) => void;
};
type ForkNodeData = { fork_message_id: string };
type VersionsNodeData = {
  /** the versions on other branches, oldest first */
  branches: Branch[];
  /** "the answer “…”": what the versions are versions of */
  of: string;
  currentBranchId: string;
  onSwitch: (branchId: string) => void;
};
type BranchFlowNode = Node<BranchNodeData, "branch">;
type ForkFlowNode = Node<ForkNodeData, "fork">;
type VersionsFlowNode = Node<VersionsNodeData, "versions">;

const hiddenHandle = "!size-1 !min-h-0 !min-w-0 !border-0 !bg-transparent";

// Merge edges attach at the sides (see layoutBranches), away from the top and bottom where the
// parent edges and fork points are. Which side depends on where the other branch sits.
function MergeHandles() {
  const sides = [
    ["left", Position.Left],
    ["right", Position.Right],
  ] as const;
  return (
    <>
      {sides.flatMap(([side, position]) =>
        (["target", "source"] as const).map((type) => (
          <Handle
            key={`${type}-${side}`}
            id={mergeHandleId(type, side)}
            type={type}
            position={position}
            className={hiddenHandle}
          />
        )),
      )}
    </>
  );
}

function BranchNode({ data }: NodeProps<BranchFlowNode>) {
  const { branch, current, onSwitch } = data;
  return (
    <>
      <Handle
        id={PARENT_IN_HANDLE}
        type="target"
        position={Position.Top}
        className={hiddenHandle}
      />
      <button
        type="button"
        aria-label={`Branch ${branch.name}${current ? " (current)" : ""}`}
        aria-current={current ? "true" : undefined}
        // React Flow sets pointer-events: none on nodes that are neither draggable nor selectable;
        // the button takes clicks back for itself, and "nopan nodrag" keep a click from panning.
        style={{ pointerEvents: "auto" }}
        onClick={() => {
          if (!current) onSwitch(branch.id);
        }}
        className={`nopan nodrag flex h-14 w-[180px] flex-col items-start justify-center rounded-lg border px-3 text-left focus-visible:outline-2 focus-visible:outline-sky-500 ${current ? "border-sky-500 bg-sky-50 ring-2 ring-sky-400 dark:border-sky-400 dark:bg-sky-950 dark:ring-sky-600" : "border-zinc-300 bg-white hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800"}`}
      >
        <span className="w-full truncate text-sm font-medium text-zinc-900 dark:text-zinc-100">
          {branch.name}
        </span>
        <span className="text-xs text-zinc-500 dark:text-zinc-400">
          {plural(branch.message_ids.length, "message")}
          {current ? " · current" : ""}
        </span>
      </button>
      <Handle
        id={PARENT_OUT_HANDLE}
        type="source"
        position={Position.Bottom}
        className={hiddenHandle}
      />
      <MergeHandles />
    </>
  );
}

function ForkNode({ data }: NodeProps<ForkFlowNode>) {
  return (
    <>
      <Handle
        id={PARENT_IN_HANDLE}
        type="target"
        position={Position.Top}
        className={hiddenHandle}
      />
      <div
        role="img"
        aria-label={`Fork point after message ${data.fork_message_id}`}
        title={`Forked after ${data.fork_message_id}`}
        className="size-5 rounded-full border-2 border-zinc-400 bg-white dark:border-zinc-500 dark:bg-zinc-900"
      />
      <Handle
        id={PARENT_OUT_HANDLE}
        type="source"
        position={Position.Bottom}
        className={hiddenHandle}
      />
    </>
  );
}

// The versions of one message (regenerated answers, edits) as one node: a group of small branch
// buttons instead of a node each, so the graph keeps the shape of the conversation.
function VersionsNode({ data }: NodeProps<VersionsFlowNode>) {
  const { branches, of, currentBranchId, onSwitch } = data;
  const label = `${branches.length + 1} versions of ${of}`;
  return (
    <>
      <Handle
        id={PARENT_IN_HANDLE}
        type="target"
        position={Position.Top}
        className={hiddenHandle}
      />
      <fieldset
        aria-label={label}
        style={{ width: VERSIONS_NODE.width, pointerEvents: "auto" }}
        className="m-0 flex min-w-0 flex-col gap-0.5 rounded-lg border border-dashed border-zinc-400 bg-zinc-50 p-1 dark:border-zinc-600 dark:bg-zinc-900"
      >
        <span className="truncate px-1 text-xs text-zinc-600 dark:text-zinc-300" title={label}>
          {label}
        </span>
        {branches.map((branch) => {
          const current = branch.id === currentBranchId;
          return (
            <button
              key={branch.id}
              type="button"
              aria-label={`Branch ${branch.name}${current ? " (current)" : ""}`}
              aria-current={current ? "true" : undefined}
              onClick={() => {
                if (!current) onSwitch(branch.id);
              }}
              className={`nopan nodrag flex h-8 w-full items-center rounded-md border px-2 text-left text-xs focus-visible:outline-2 focus-visible:outline-sky-500 ${current ? "border-sky-500 bg-sky-50 font-medium ring-2 ring-sky-400 dark:border-sky-400 dark:bg-sky-950 dark:ring-sky-600" : "border-zinc-300 bg-white hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800"}`}
            >
              <span className="min-w-0 flex-1 truncate text-zinc-900 dark:text-zinc-100">
                {branch.name}
              </span>
              <span className="shrink-0 text-zinc-500 dark:text-zinc-400">
                {current ? "current" : plural(branch.message_ids.length, "message")}
              </span>
            </button>
          );
        })}
      </fieldset>
      <Handle
        id={PARENT_OUT_HANDLE}
        type="source"
        position={Position.Bottom}
        className={hiddenHandle}
      />
      <MergeHandles />
    </>
  );
}

// Module-level so React Flow sees the same object on every render.
const nodeTypes = { branch: BranchNode, fork: ForkNode, versions: VersionsNode };

/** What a versions group names: the message's role and the start of its text. */
function versionsOf(messageId: string, messages: ReadonlyMap<string, ContextMessage>): string {
  const message = messages.get(messageId);
  if (message === undefined) return `message ${messageId}`;
  const what = message.role === "user" ? "your message" : "the answer";
  const preview = messagePreview(message, 40);
  return preview === "" ? what : `${what} “${preview}”`;
}

function toFlowNode(
  node: BranchLayoutNode,
  currentBranchId: string,
  onSwitch: (id: string) => void,
  messages: ReadonlyMap<string, ContextMessage>,
): BranchFlowNode | ForkFlowNode | VersionsFlowNode {
  const position = { x: node.x, y: node.y };
  switch (node.kind) {
    case "branch":
      return {
        id: node.id,
        type: "branch",
        position,
        // known sizes let fitView frame the graph before the nodes are measured
        ...BRANCH_NODE_SIZE,
        data: { branch: node.branch, current: node.id === currentBranchId, onSwitch },
      };
    case "fork":
      return {
        id: node.id,
        type: "fork",
        position,
        ...FORK_NODE_SIZE,
        data: { fork_message_id: node.fork_message_id },
      };
    case "versions":
      return {
        id: node.id,
        type: "versions",
        position,
        ...versionsNodeSize(node.branches.length),
        data: {
          branches: node.branches,
          of: versionsOf(node.message_id, messages),
          currentBranchId,
          onSwitch,
        },
      };
    default: {
      const unhandled: never = node;
      throw new Error(`unknown node ${JSON.stringify(unhandled)}`);
    }
  }
}

export interface BranchGraphProps {
  branches: readonly Branch[];
  currentBranchId: string;
  onSwitch: (branchId: string) => void;
  /** the session's message pool, for the merge dialog */
  messages: readonly ContextMessage[];
  onMerge: (request: MergeRequest) => Promise<MergeResponse>;
  onResolve: (mergeId: string, request: ResolveMergeRequest) => Promise<MergeResponse>;
  /** a merge waiting for proceed/cancel or conflict resolution; offers to continue it */
  pendingMerge?: MergeResponse | undefined;
  className?: string;
}

export function BranchGraph({
  branches,
  currentBranchId,
  onSwitch,
  messages,
  onMerge,
  onResolve,
  pendingMerge,
  className = "h-80",
}: BranchGraphProps) {
  const [mergeOpen, setMergeOpen] = useState(false);
  const [resuming, setResuming] = useState(false);
  const defaults = useMemo(
    () => mergeDefaults(branches, currentBranchId),
    [branches, currentBranchId],
  );
  const { nodes, edges } = useMemo(() => {
    const layout = layoutBranches(branches, { groupVersions: true });
    const byId = new Map(messages.map((m) => [m.id, m]));
    return {
      nodes: layout.nodes.map((n) => toFlowNode(n, currentBranchId, onSwitch, byId)),
      edges: layout.edges.map(toFlowEdge),
    };
  }, [branches, currentBranchId, onSwitch, messages]);

  return (
    <section aria-label="Branch graph" className="flex flex-col gap-2">
      <div className="flex items-center justify-between gap-2">
        <h2 className="text-sm font-semibold text-zinc-800 dark:text-zinc-200">
          Branches · {branches.length}
        </h2>
        <div className="flex gap-2">
          {pendingMerge && (
            <button
              type="button"
              className={buttonClass.primary}
              onClick={() => {
                setResuming(true);
                setMergeOpen(true);
              }}
            >
              Continue pending merge
            </button>
          )}
          <button
            type="button"
            className={buttonClass.secondary}
            disabled={branches.length < 2}
            onClick={() => {
              setResuming(false);
              setMergeOpen(true);
            }}
          >
            Merge…
          </button>
        </div>
      </div>
      <div
        className={`w-full overflow-hidden rounded-lg border border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-950 ${className}`}
      >
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={false}
          fitView
          // a graph of two or three branches would otherwise be blown up to twice its size
          fitViewOptions={{ maxZoom: 1 }}
          minZoom={0.2}
          proOptions={{ hideAttribution: true }}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <MergeDialog
        open={mergeOpen}
        onOpenChange={setMergeOpen}
        branches={branches}
        messages={messages}
        defaultSourceId={defaults.sourceId}
        defaultTargetId={defaults.targetId}
        resume={resuming ? pendingMerge : undefined}
        onMerge={onMerge}
        onResolve={onResolve}
      />
    </section>
  );
}
