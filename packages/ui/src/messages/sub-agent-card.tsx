"use client";

import type { BodyOf, Usage } from "@arbor/core/browser";
import type { ReactNode } from "react";
import { badgeClass } from "../styles.js";
import { preClass } from "./disclosure.js";

// A sub-agent call's child loop, inside its tool call's row: a collapsible card, open while the
// child runs, showing its tool calls (progress lines) and the text it streams; once it ended, its
// status, turns and tokens (its final text is the call's result, shown below it as usual). A
// child's call the approval policy holds for a person shows with the chat's own Approve / Deny
// while it waits, and its decision after: the card takes that rendering as its children (the
// tool-request card passes itself in), so neither module imports the other.

/** A child's call that the session's approval policy held for a person (subagent_update). */
export interface SubAgentApprovalView {
  call_id: string;
  call_name: string;
  arguments: Record<string, unknown>;
  status: "pending_approval" | "approved" | "denied";
  cancelled: boolean;
  /** who decided it ("Approved by Ana"); absent while pending or when nobody did */
  decided_by?: { id: string; name: string } | null;
}

/** A sub-agent call as the live events describe it (subagent_update), or its stored result. */
export interface SubAgentView {
  loop_id: string;
  /** the child's answer text streamed so far */
  text: string;
  progress: readonly string[];
  status: "running" | "completed" | "turn_limit" | "failed" | "cancelled";
  turns: number;
  usage: Usage | undefined;
  /** its calls held for a person, in order (live only) */
  approvals?: readonly SubAgentApprovalView[];
}

const APPROVAL: Record<SubAgentApprovalView["status"], "pending" | "approved" | "denied"> = {
  pending_approval: "pending",
  approved: "approved",
  denied: "denied",
};

const statusLabel: Record<SubAgentView["status"], string> = {
  running: "running",
  completed: "done",
  turn_limit: "stopped at its turn limit",
  failed: "failed",
  cancelled: "cancelled",
};

/** The view of a finished call from its stored result's details (history, after a reload). */
export function subAgentFromResult(
  result: BodyOf<"tool_result"> | undefined,
): SubAgentView | undefined {
  const details = result?.details as
    | {
        type?: unknown;
        kind?: unknown;
        loop_id?: unknown;
        status?: unknown;
        turns?: unknown;
        usage?: Usage;
      }
    | undefined;
  if (details?.type !== "subagent" || details.kind !== "ended") return undefined;
  return {
    loop_id: String(details.loop_id ?? ""),
    text: "",
    progress: [],
    status: (details.status as SubAgentView["status"]) ?? "completed",
    turns: typeof details.turns === "number" ? details.turns : 0,
    usage: details.usage,
  };
}

/** The child's calls held for a person, as a tool request to render; undefined when none. */
export function subAgentApprovals(view: SubAgentView): BodyOf<"tool_request"> | undefined {
  const approvals = view.approvals ?? [];
  if (approvals.length === 0) return undefined;
  return {
    message_type: "tool_request",
    text: "",
    thinking: [],
    calls: approvals.map((a) => ({
      id: a.call_id,
      name: a.call_name,
      arguments: a.arguments,
      approval: APPROVAL[a.status],
      ...(a.status === "pending_approval"
        ? {}
        : { approval_note: a.cancelled ? "cancelled" : "user" }),
      ...(a.decided_by ? { decided_by: a.decided_by } : {}),
    })),
  };
}

export interface SubAgentCardProps {
  name: string;
  view: SubAgentView;
  /** the rendering of subAgentApprovals(view), shown in the card's "Approvals of …" section */
  children?: ReactNode;
}

export function SubAgentCard({ name, view, children }: SubAgentCardProps) {
  const running = view.status === "running";
  const tokens = view.usage ? view.usage.input + view.usage.output : undefined;
  return (
    <details
      open={running}
      data-testid="subagent-card"
      data-status={view.status}
      className="mt-2 rounded-md border border-violet-200 bg-violet-50/40 p-2 text-xs dark:border-violet-900 dark:bg-violet-950/20"
    >
      <summary className="flex cursor-pointer flex-wrap items-center gap-2">
        <span className="font-medium">Sub-agent {name}</span>
        <span
          className={`${badgeClass} ${
            running
              ? "bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200"
              : view.status === "completed"
                ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200"
                : "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200"
          }`}
        >
          {statusLabel[view.status]}
        </span>
        {!running && (
          <span className="text-zinc-600 dark:text-zinc-400">
            {view.turns} turn{view.turns === 1 ? "" : "s"}
            {tokens !== undefined ? ` · ${tokens.toLocaleString("en")} tokens` : ""}
          </span>
        )}
        <code className="truncate text-zinc-500" title="the child loop in the admin loop tree">
          {view.loop_id}
        </code>
      </summary>
      {view.progress.length > 0 && (
        <ol aria-label={`Steps of ${name}`} className="mt-2 flex flex-col gap-0.5 font-mono">
          {view.progress.map((line, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: progress lines only grow, never reorder
            <li key={index} className="truncate text-zinc-700 dark:text-zinc-300">
              → {line}
            </li>
          ))}
        </ol>
      )}
      {children !== undefined && children !== null && children !== false && (
        <section aria-label={`Approvals of ${name}`} className="mt-2">
          {children}
        </section>
      )}
      {view.text !== "" && <pre className={`${preClass} mt-2`}>{view.text}</pre>}
    </details>
  );
}
