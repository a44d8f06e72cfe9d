"use client";

import type {
  ApprovalDecision,
  ApprovalStatus,
  BodyOf,
  ToolCallRequest,
} from "@arbor/core/browser";
import { useState } from "react";
import { unreachable } from "../state-label.js";
import { badgeClass, buttonClass } from "../styles.js";
import { ApprovalActions } from "./approval-actions.js";
import { CallBody } from "./call-body.js";
import { Markdown } from "./markdown.js";
import { McpServerTag } from "./mcp-origin.js";
import {
  SubAgentCard,
  type SubAgentView,
  subAgentApprovals,
  subAgentFromResult,
} from "./sub-agent-card.js";
import { ToolResultCard } from "./tool-result-card.js";

// The assistant's tool calls with inline approval. Several calls may wait at once; each has its own
// Approve / Deny / "Always allow" (approval-actions.tsx). A decision is sent once: its buttons disable until the
// server's update turns the call's status from pending to approved or denied. Each call is one
// card from request to result: its arguments, its approval, "Running…" while it runs, and its
// result (given by the transcript, which then shows no separate result card).

/** A call's result, by tool_call_id. */
export type ToolResults = ReadonlyMap<string, BodyOf<"tool_result">>;

/** Sub-agent calls' child loops seen live, by tool_call_id. */
export type SubAgentViews = Readonly<Record<string, SubAgentView>>;

function ApprovalBadge({
  approval,
  note,
  by,
}: {
  approval: ApprovalStatus;
  note: string | undefined;
  /** the person who decided (issue #25): "Approved by Ana" in place of the note "user" */
  by: ToolCallRequest["decided_by"];
}) {
  const suffix = by ? ` by ${by.name}` : note ? ` · ${note}` : "";
  switch (approval) {
    case "pending":
      return (
        <span
          className={`${badgeClass} bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200`}
        >
          Waiting for approval
        </span>
      );
    case "approved":
      return (
        <span
          className={`${badgeClass} bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200`}
        >
          Approved{suffix}
        </span>
      );
    case "auto_approved":
      return (
        <span
          className={`${badgeClass} bg-emerald-50 text-emerald-700 dark:bg-emerald-950/50 dark:text-emerald-300`}
        >
          Auto-approved{suffix}
        </span>
      );
    case "denied":
      return (
        <span className={`${badgeClass} bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200`}>
          Denied{suffix}
        </span>
      );
    default:
      return unreachable(approval);
  }
}

interface ToolCallRowProps {
  call: ToolCallRequest;
  decided: boolean;
  onDecide: ((decision: ApprovalDecision) => void) | undefined;
  result: BodyOf<"tool_result"> | undefined;
  /** the session is still working: an approved call without a result is running */
  running: boolean;
  /** the running call's latest progress (an MCP server's progress notification) */
  progress: string | undefined;
  onOpenFile: ((path: string, line: number) => void) | undefined;
  /** a sub-agent call's child loop, live */
  subAgent: SubAgentView | undefined;
  /** decides the child's calls that wait for a person */
  onNestedDecisions: ((decisions: ApprovalDecision[]) => void) | undefined;
}

function ToolCallRow({
  call,
  decided,
  onDecide,
  result,
  running,
  progress,
  onOpenFile,
  subAgent,
  onNestedDecisions,
}: ToolCallRowProps) {
  const child = subAgent ?? subAgentFromResult(result);
  const childApprovals = child ? subAgentApprovals(child) : undefined;
  const pending = call.approval === "pending";
  const approved = call.approval === "approved" || call.approval === "auto_approved";
  return (
    <li
      aria-label={`Tool call ${call.name}`}
      data-tool-call-id={call.id}
      data-approval={call.approval}
      data-result={result?.status ?? (approved && running ? "running" : "none")}
      className="rounded-md border border-zinc-200 p-2 dark:border-zinc-800"
    >
      <div className="flex flex-wrap items-center gap-2">
        <code className="font-mono text-sm font-semibold">{call.name}</code>
        <McpServerTag toolName={call.name} />
        <ApprovalBadge approval={call.approval} note={call.approval_note} by={call.decided_by} />
        {!result && approved && running && (
          <span className="inline-flex items-center gap-1 text-xs text-sky-700 dark:text-sky-300">
            <span
              aria-hidden="true"
              className="inline-block size-2 motion-safe:animate-pulse rounded-full bg-sky-500"
            />
            Running…
          </span>
        )}
      </div>
      {!result && approved && running && progress !== undefined && (
        <p
          role="status"
          aria-label={`Progress of ${call.name}`}
          className="mt-1 text-xs text-sky-800 dark:text-sky-200"
        >
          {progress}
        </p>
      )}
      {/* what the call does (a diff, a command, a request), the raw arguments one click away */}
      <CallBody call={call} result={result} />
      {pending && onDecide && <ApprovalActions call={call} decided={decided} onDecide={onDecide} />}
      {child && (
        <SubAgentCard name={call.name} view={child}>
          {childApprovals && (
            <ToolRequestCard
              body={childApprovals}
              onToolDecisions={
                child.status === "running" && running && !result ? onNestedDecisions : undefined
              }
            />
          )}
        </SubAgentCard>
      )}
      {result && (
        <div className="mt-2">
          <ToolResultCard body={result} onOpenFile={onOpenFile} />
        </div>
      )}
    </li>
  );
}

export interface ToolRequestCardProps {
  body: BodyOf<"tool_request">;
  /** absent: the card is read-only (history, admin) */
  onToolDecisions?: ((decisions: ApprovalDecision[]) => void) | undefined;
  /** the calls' results, shown inside each call's row */
  results?: ToolResults | undefined;
  running?: boolean;
  /** the latest progress of running calls, by tool call id (tool_progress events) */
  progress?: Readonly<Record<string, string>> | undefined;
  /** a codebase tool's result links its files here */
  onOpenFile?: ((path: string, line: number) => void) | undefined;
  /** sub-agent calls' child loops seen live (subagent_update), by tool_call_id */
  subAgents?: SubAgentViews | undefined;
  /** decides a sub-agent's child call that waits for a person (while the call runs) */
  onNestedDecisions?: ((decisions: ApprovalDecision[]) => void) | undefined;
}

export function ToolRequestCard({
  body,
  onToolDecisions,
  results,
  running = false,
  progress,
  onOpenFile,
  subAgents,
  onNestedDecisions,
}: ToolRequestCardProps) {
  const [decided, setDecided] = useState<ReadonlySet<string>>(new Set());
  const send = (decisions: ApprovalDecision[]) => {
    if (!onToolDecisions || decisions.length === 0) return;
    setDecided((previous) => new Set([...previous, ...decisions.map((d) => d.tool_call_id)]));
    onToolDecisions(decisions);
  };
  const waiting = body.calls.filter((c) => c.approval === "pending" && !decided.has(c.id));
  return (
    <div className="flex flex-col gap-2">
      {body.thinking.length > 0 && (
        <details className="text-xs text-zinc-500 dark:text-zinc-400">
          <summary className="cursor-pointer">Reasoning</summary>
          {body.thinking.map((block, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: reasoning blocks have no ids and never reorder
            <p key={index} className="mt-1 whitespace-pre-wrap">
              {block.thinking}
            </p>
          ))}
        </details>
      )}
      {body.text !== "" && <Markdown text={body.text} />}
      {body.calls.length > 0 && (
        <ul aria-label="Tool calls" className="flex flex-col gap-2">
          {body.calls.map((call) => (
            <ToolCallRow
              key={call.id}
              call={call}
              decided={decided.has(call.id)}
              onDecide={onToolDecisions ? (decision) => send([decision]) : undefined}
              result={results?.get(call.id)}
              running={running}
              progress={progress?.[call.id]}
              onOpenFile={onOpenFile}
              subAgent={subAgents?.[call.id]}
              onNestedDecisions={onNestedDecisions}
            />
          ))}
        </ul>
      )}
      {onToolDecisions && waiting.length > 1 && (
        <div className="flex flex-wrap gap-2">
          <button
            type="button"
            className={buttonClass.secondary}
            onClick={() =>
              send(waiting.map((c) => ({ tool_call_id: c.id, decision: "approve" as const })))
            }
          >
            Approve all {waiting.length}
          </button>
          <button
            type="button"
            className={buttonClass.secondary}
            onClick={() =>
              send(waiting.map((c) => ({ tool_call_id: c.id, decision: "deny" as const })))
            }
          >
            Deny all {waiting.length}
          </button>
        </div>
      )}
    </div>
  );
}
