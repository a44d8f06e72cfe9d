"use client";

import type { ApprovalDecision, BodyOf, ContextMessage, FoldView } from "@arbor/core/browser";
import { formatTokens } from "../format.js";
import { badgeClass } from "../styles.js";
import { Disclosure } from "./disclosure.js";
import { Markdown } from "./markdown.js";
import { MessageCard } from "./message-card.js";

// A fold (context folding, issue #13) in the chat: the card under the parent's `branch` call.
// It shows what the fold is for, whether it runs, returned or was forced (and why), its tokens
// used of its budget, the message its parent got, and, collapsed, its steps: the messages that
// never entered the parent's context. A `branch` among the steps nests its own fold's card. A
// call the session's approval policy holds for a person shows Approve / Deny while the fold runs
// (the chat's own tool-call approval), and its decided state after.

/** What the card needs of a fold: GET /folds' view, or what the live events said so far. */
export type FoldCardFold = Pick<
  FoldView,
  | "fold_id"
  | "parent_fold_id"
  | "depth"
  | "description"
  | "budget"
  | "tokens_used"
  | "status"
  | "reason"
  | "warned"
  | "message"
  | "tool_call_id"
  | "steps"
>;

const REASONS: Record<NonNullable<FoldView["reason"]>, string> = {
  budget: "budget spent",
  timeout: "timed out",
  cancelled: "cancelled",
  parent_returned: "parent returned",
  crash: "server restarted",
};

function StatusBadge({ fold }: { fold: FoldCardFold }) {
  switch (fold.status) {
    case "running":
      return (
        <span
          className={`${badgeClass} inline-flex items-center gap-1 bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200`}
        >
          <span
            aria-hidden="true"
            className="inline-block size-2 motion-safe:animate-pulse rounded-full bg-sky-500"
          />
          Running
        </span>
      );
    case "returned":
      return (
        <span
          className={`${badgeClass} bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200`}
        >
          Returned
        </span>
      );
    case "forced":
      return (
        <span
          className={`${badgeClass} bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200`}
        >
          Forced: {fold.reason ? REASONS[fold.reason] : "ended"}
        </span>
      );
    default:
      return null;
  }
}

/** The steps' tool results, by request, so each call shows its result in one card. */
function pairResults(steps: readonly ContextMessage[]) {
  const byRequest = new Map<string, Map<string, BodyOf<"tool_result">>>();
  const paired = new Set<string>();
  const requestOf = new Map<string, string>();
  for (const m of steps) {
    if (m.body.message_type === "tool_request")
      for (const call of m.body.calls) requestOf.set(call.id, m.id);
  }
  for (const m of steps) {
    if (m.body.message_type !== "tool_result") continue;
    const request = requestOf.get(m.body.tool_call_id);
    if (request === undefined) continue;
    const results = byRequest.get(request) ?? new Map();
    results.set(m.body.tool_call_id, m.body);
    byRequest.set(request, results);
    paired.add(m.id);
  }
  return { byRequest, paired };
}

export interface FoldCardProps {
  fold: FoldCardFold;
  /** every fold of the session: a `branch` among this fold's steps nests its child's card */
  folds?: readonly FoldCardFold[];
  onOpenFile?: ((path: string, line: number) => void) | undefined;
  /** decides a fold's call that waits for a person (POST /approvals); offered while it runs */
  onToolDecisions?: ((decisions: ApprovalDecision[]) => void) | undefined;
}

export function FoldCard({ fold, folds = [], onOpenFile, onToolDecisions }: FoldCardProps) {
  const running = fold.status === "running";
  const decide = running ? onToolDecisions : undefined;
  // a running fold's call that waits for a person is shown above its (collapsed) steps
  const waiting = running
    ? fold.steps.filter(
        (s) =>
          s.body.message_type === "tool_request" &&
          s.body.calls.some((c) => c.approval === "pending"),
      )
    : [];
  const waitingIds = new Set(waiting.map((s) => s.id));
  const share = fold.budget > 0 ? Math.min(1, fold.tokens_used / fold.budget) : 0;
  const { byRequest, paired } = pairResults(fold.steps);
  const childOf = (callId: string) =>
    folds.find((f) => f.parent_fold_id === fold.fold_id && f.tool_call_id === callId);
  return (
    <section
      aria-label={`Fold: ${fold.description}`}
      data-fold-id={fold.fold_id}
      data-fold-status={fold.status}
      className="rounded-md border border-dashed border-violet-300 bg-violet-50/40 p-3 dark:border-violet-800 dark:bg-violet-950/20"
    >
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span
          className={`${badgeClass} bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-200`}
        >
          Fold{fold.depth > 1 ? ` · depth ${fold.depth}` : ""}
        </span>
        <span className="font-medium">{fold.description}</span>
        <StatusBadge fold={fold} />
        {waiting.length > 0 && (
          <span
            className={`${badgeClass} bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200`}
          >
            Waiting for approval
          </span>
        )}
        <span
          className={`ml-auto text-xs ${fold.warned ? "text-amber-700 dark:text-amber-300" : "text-zinc-500 dark:text-zinc-400"}`}
        >
          {formatTokens(fold.tokens_used)} / {formatTokens(fold.budget)} tokens
        </span>
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a native <meter> cannot be styled alike across browsers; the ARIA meter carries the same semantics */}
      <div
        role="meter"
        aria-label="Fold budget used"
        aria-valuemin={0}
        aria-valuemax={fold.budget}
        aria-valuenow={fold.tokens_used}
        className="mt-2 h-1 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800"
      >
        <div
          className={`h-full ${share >= 1 ? "bg-red-500" : share >= 0.8 ? "bg-amber-500" : "bg-violet-500"}`}
          style={{ width: `${Math.round(share * 100)}%` }}
        />
      </div>
      {fold.message !== null && (
        <div className="mt-2 text-sm" data-fold-result="">
          <Markdown text={fold.message} />
        </div>
      )}
      {waiting.length > 0 && (
        <section aria-label={`Waiting for approval in fold ${fold.description}`} className="mt-2">
          {waiting.map((step) => (
            <MessageCard
              key={step.id}
              message={step}
              toolResults={byRequest.get(step.id)}
              running
              onOpenFile={onOpenFile}
              onToolDecisions={decide}
            />
          ))}
        </section>
      )}
      <div className="mt-2">
        <Disclosure
          label={`Steps of fold ${fold.description}`}
          summary={
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              {fold.steps.length === 0
                ? "No steps stored yet"
                : `${fold.steps.length} step${fold.steps.length === 1 ? "" : "s"} (not in the parent's context)`}
            </span>
          }
        >
          <ol className="flex flex-col gap-2">
            {fold.steps
              .filter((step) => !paired.has(step.id) && !waitingIds.has(step.id))
              .map((step) => (
                <li key={step.id} className="flex flex-col gap-2">
                  {step.role === "user" && step.body.message_type === "text" ? (
                    // written by the parent model (its `branch` prompt), not by the user
                    <figure aria-label="Fold prompt" className="text-sm">
                      <figcaption className="text-xs font-medium text-zinc-500 dark:text-zinc-400">
                        Prompt
                      </figcaption>
                      <p className="mt-1 whitespace-pre-wrap">{step.body.text}</p>
                    </figure>
                  ) : (
                    <MessageCard
                      message={step}
                      toolResults={byRequest.get(step.id)}
                      running={fold.status === "running"}
                      onOpenFile={onOpenFile}
                      onToolDecisions={decide}
                    />
                  )}
                  {step.body.message_type === "tool_request" &&
                    step.body.calls
                      .filter((call) => call.name === "branch")
                      .map((call) => {
                        const child = childOf(call.id);
                        return child ? (
                          <FoldCard
                            key={child.fold_id}
                            fold={child}
                            folds={folds}
                            onOpenFile={onOpenFile}
                            onToolDecisions={onToolDecisions}
                          />
                        ) : null;
                      })}
                </li>
              ))}
          </ol>
        </Disclosure>
      </div>
    </section>
  );
}
