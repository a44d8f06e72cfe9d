"use client";

import type { ApprovalDecision } from "@arbor/core/browser";
import { costText } from "@arbor/ui";
import {
  chosenCandidate,
  type LiveCandidate,
  type LiveParallel,
} from "@/lib/client/parallel-store";
import { buttonClass } from "../styles";

// "Ask N ways", step two: every candidate's answer streams into its own column; a call that
// needs approval waits there with Approve / Deny (only that column waits); then the verdict and
// its reasons. The chosen answer itself appears in the transcript (it continues the branch); the
// others are on branches of their own (the branch panel).

const STATUS: Record<LiveCandidate["status"], string> = {
  running: "Answering…",
  waiting: "Waiting for your approval",
  complete: "Done",
  failed: "Failed",
  aborted: "Stopped",
};

export interface ParallelColumnsProps {
  group: LiveParallel;
  /** absent: the caller may not decide (a viewer); the buttons are not shown */
  onDecide?: ((decisions: ApprovalDecision[]) => void) | undefined;
  onDismiss: () => void;
  /**
   * "Use this answer" on a candidate's card after the verdict: the conversation goes on with it.
   * Absent: not offered (a viewer).
   */
  onChoose?: ((candidate: number) => void) | undefined;
}

export function ParallelColumns({ group, onDecide, onDismiss, onChoose }: ParallelColumnsProps) {
  const verdict = group.verdict;
  const selected = chosenCandidate(group);
  return (
    <section
      aria-label="Parallel answers"
      className="flex flex-col gap-2 rounded-xl border border-zinc-200 bg-zinc-50 p-3 dark:border-zinc-800 dark:bg-zinc-900/60"
    >
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold">
          Asked {group.candidates.length} ways
          {selected === undefined
            ? ""
            : ` · ${candidateLabel(group, selected)} ${verdict?.fallback && group.choice === undefined ? "taken" : "chosen"}`}
        </h2>
        {verdict !== undefined && (
          <button type="button" className={buttonClass.ghost} onClick={onDismiss}>
            Hide
          </button>
        )}
      </div>
      <div
        className="grid gap-2"
        style={{ gridTemplateColumns: `repeat(auto-fit, minmax(12rem, 1fr))` }}
      >
        {group.candidates.map((candidate) => {
          const chosen = selected === candidate.index;
          return (
            <article
              key={candidate.index}
              aria-label={`Candidate ${candidate.index + 1}: ${candidate.label}`}
              data-status={candidate.status}
              data-chosen={chosen ? "true" : undefined}
              className={`flex min-w-0 flex-col gap-1 rounded-lg border bg-white p-2 text-sm dark:bg-zinc-900 ${
                chosen
                  ? "border-sky-500 ring-2 ring-sky-500/40"
                  : "border-zinc-200 dark:border-zinc-800"
              }`}
            >
              <header className="flex items-baseline justify-between gap-1">
                <span className="truncate font-medium">{candidate.label}</span>
                <span className="shrink-0 text-xs text-zinc-500">{candidate.model}</span>
              </header>
              <p className="text-xs text-zinc-500" aria-live="polite">
                {chosen ? "Chosen" : STATUS[candidate.status]}
                {candidate.usage ? ` · ${candidate.usage.totalTokens} tokens` : ""}
              </p>
              {candidate.tools.map((tool) => (
                <div
                  key={tool.tool_call_id}
                  className="rounded border border-zinc-200 px-1.5 py-1 text-xs dark:border-zinc-700"
                >
                  <span className="font-mono">{tool.tool_name}</span>{" "}
                  {tool.arguments ? (
                    <span className="break-all text-zinc-500">
                      {JSON.stringify(tool.arguments).slice(0, 120)}
                    </span>
                  ) : null}{" "}
                  <span className="text-zinc-500">({tool.status.replace("_", " ")})</span>
                  {tool.status === "pending_approval" && onDecide !== undefined && (
                    <span className="mt-1 flex gap-1">
                      <button
                        type="button"
                        className={buttonClass.primary}
                        onClick={() =>
                          onDecide([{ tool_call_id: tool.tool_call_id, decision: "approve" }])
                        }
                      >
                        Approve
                      </button>
                      <button
                        type="button"
                        className={buttonClass.secondary}
                        onClick={() =>
                          onDecide([{ tool_call_id: tool.tool_call_id, decision: "deny" }])
                        }
                      >
                        Deny
                      </button>
                    </span>
                  )}
                </div>
              ))}
              <div
                data-testid="candidate-text"
                className="max-h-64 overflow-y-auto whitespace-pre-wrap break-words"
              >
                {candidate.text}
              </div>
              {candidate.error !== undefined && (
                <p className="text-xs text-red-600 dark:text-red-400">{candidate.error}</p>
              )}
              {verdict !== undefined &&
                !chosen &&
                candidate.status === "complete" &&
                onChoose !== undefined && (
                  <button
                    type="button"
                    className={`${buttonClass.secondary} mt-auto self-start`}
                    onClick={() => onChoose(candidate.index)}
                  >
                    Use this answer
                  </button>
                )}
            </article>
          );
        })}
      </div>
      {verdict !== undefined && (
        <section
          aria-label="Verdict"
          className="rounded-lg border border-sky-200 bg-sky-50 p-2 text-sm dark:border-sky-900 dark:bg-sky-950/40"
        >
          <p className="font-medium">{verdictHeadline(group, verdict)}</p>
          <p className="whitespace-pre-wrap text-zinc-700 dark:text-zinc-300">{verdict.reason}</p>
          <p className="mt-1 text-xs text-zinc-500">
            {verdictSpending(verdict)}. The other answers are kept as branches.
          </p>
        </section>
      )}
    </section>
  );
}

function candidateLabel(group: LiveParallel, index: number): string {
  return group.candidates.find((c) => c.index === index)?.label ?? `Candidate ${index + 1}`;
}

/**
 * One sentence on how the answer was chosen that never contradicts the reason under it: a
 * fallback (the judge named no candidate) was chosen by no one, and says only that it was taken.
 */
export function verdictHeadline(
  group: LiveParallel,
  verdict: NonNullable<LiveParallel["verdict"]>,
): string {
  const judged = candidateLabel(group, verdict.selected);
  const first = verdict.fallback
    ? `${judged} was taken as the first candidate.`
    : `${judged} was chosen (${strategyText(verdict.strategy)}).`;
  if (group.choice === undefined || group.choice === verdict.selected) return first;
  return `You chose ${candidateLabel(group, group.choice)}. ${first}`;
}

function strategyText(strategy: LiveParallel["strategy"]): string {
  switch (strategy) {
    case "llm_judge":
      return "the judge's verdict";
    case "pick_first":
      return "always the first";
    case "token_efficient":
      return "the fewest tokens";
    case "elaborate":
      return "the most tokens";
    default:
      return strategy satisfies never;
  }
}

/** "1200 tokens in all, $0.0042 (300 to choose, $0.0011)": each with its cost (decision 0062). */
function verdictSpending(verdict: NonNullable<LiveParallel["verdict"]>): string {
  const all = costText(verdict.usage);
  const judge = costText(verdict.evaluation_usage);
  return `${verdict.usage.totalTokens} tokens in all${all ? `, ${all}` : ""} (${verdict.evaluation_usage.totalTokens} to choose${judge ? `, ${judge}` : ""})`;
}
