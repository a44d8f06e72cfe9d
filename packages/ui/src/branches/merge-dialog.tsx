"use client";

import type {
  Branch,
  ContextMessage,
  MergeRequest,
  MergeResponse,
  MergeStrategyName,
  MergeWarning,
  ResolveMergeRequest,
} from "@arbor/core/browser";
import * as Dialog from "@radix-ui/react-dialog";
import { useId, useState } from "react";
import { DialogPanel } from "../dialog.js";
import { messagePreview } from "../messages/preview.js";
import { unreachable } from "../state-label.js";
import { buttonClass, inputClass } from "../styles.js";
import { ConflictResolver } from "./conflict-resolver.js";

// The merge flow: choose source, target and strategy (cherry-pick: which messages) → the server
// answers merged, needs_confirmation (dependency warnings: Proceed / Cancel) or conflicts (rebase:
// resolve side by side). The component does no fetching: onMerge and onResolve return the
// server's MergeResponse and the dialog moves to the step that answer calls for.

const strategies: Array<{ value: MergeStrategyName; label: string; description: string }> = [
  {
    value: "append",
    label: "Append",
    description: "Add the source's new messages after the target's.",
  },
  {
    value: "cherry_pick",
    label: "Cherry-pick",
    description: "Bring over only the messages you tick.",
  },
  {
    value: "rebase",
    label: "Rebase",
    description: "Replay the source's newer messages onto the target.",
  },
];

type Step =
  | { step: "choose" }
  | { step: "confirm"; response: MergeResponse }
  | { step: "conflicts"; response: MergeResponse }
  | { step: "done"; response: MergeResponse };

function stepFor(response: MergeResponse): Step {
  switch (response.status) {
    case "merged":
    case "cancelled":
      return { step: "done", response };
    case "needs_confirmation":
      return { step: "confirm", response };
    case "conflicts":
      return { step: "conflicts", response };
    default:
      return unreachable(response.status);
  }
}

/** The source's messages the target lacks, in source order: what a cherry-pick can choose from. */
export function cherryPickCandidates(source: Branch, target: Branch): string[] {
  const onTarget = new Set(target.message_ids);
  return source.message_ids.filter((id) => !onTarget.has(id));
}

/**
 * Which merge the dialog offers first: the current branch into the one it was forked from (after
 * a fork, bringing the fork's work back is what one wants; issue #27, case 6). The first branch
 * (no parent) is the target instead, with the most recently changed other branch as the source.
 */
export function mergeDefaults(
  branches: readonly Branch[],
  currentBranchId: string,
): { sourceId: string | undefined; targetId: string | undefined } {
  const current = branches.find((b) => b.id === currentBranchId);
  const parent = branches.find((b) => b.id === current?.parent_branch_id);
  if (current !== undefined && parent !== undefined) {
    return { sourceId: current.id, targetId: parent.id };
  }
  const latest = branches
    .filter((b) => b.id !== currentBranchId)
    .reduce<Branch | undefined>(
      (best, b) => (best === undefined || b.updated_at > best.updated_at ? b : best),
      undefined,
    );
  return { sourceId: latest?.id, targetId: current?.id };
}

function WarningList({ warnings }: { warnings: readonly MergeWarning[] }) {
  if (warnings.length === 0) return null;
  return (
    <ul aria-label="Merge warnings" className="flex flex-col gap-1">
      {warnings.map((warning, index) => (
        <li
          // biome-ignore lint/suspicious/noArrayIndexKey: warnings have no ids and are shown once
          key={index}
          data-kind={warning.kind}
          className="rounded-md bg-amber-50 px-2 py-1 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-200"
        >
          {warning.description}
        </li>
      ))}
    </ul>
  );
}

export interface MergeDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  branches: readonly Branch[];
  /** the session's message pool, for cherry-pick choices and conflict previews */
  messages: readonly ContextMessage[];
  defaultSourceId?: string | undefined;
  defaultTargetId?: string | undefined;
  /**
   * A merge the server still holds (SessionDetail.pending_merges, e.g. after a reload), as a
   * MergeResponse: the dialog opens at its warnings or conflicts instead of at the first step.
   */
  resume?: MergeResponse | undefined;
  onMerge: (request: MergeRequest) => Promise<MergeResponse>;
  onResolve: (mergeId: string, request: ResolveMergeRequest) => Promise<MergeResponse>;
}

export function MergeDialog(props: MergeDialogProps) {
  const { open, onOpenChange } = props;
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <DialogPanel title="Merge branches" wide>
        {/* Mounted only while open, so every opening starts at the first step. */}
        {open && <MergeFlow {...props} />}
      </DialogPanel>
    </Dialog.Root>
  );
}

function MergeFlow({
  onOpenChange,
  branches,
  messages,
  defaultSourceId,
  defaultTargetId,
  resume,
  onMerge,
  onResolve,
}: MergeDialogProps) {
  const first = branches[0]?.id ?? "";
  const [sourceId, setSourceId] = useState(
    defaultSourceId ?? branches.find((b) => b.id !== defaultTargetId)?.id ?? first,
  );
  const [targetId, setTargetId] = useState(defaultTargetId ?? first);
  const [strategy, setStrategy] = useState<MergeStrategyName>("append");
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [step, setStep] = useState<Step>(resume ? stepFor(resume) : { step: "choose" });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = { source: useId(), target: useId() };
  const byId = new Map(messages.map((m) => [m.id, m]));
  const source = branches.find((b) => b.id === sourceId);
  const target = branches.find((b) => b.id === targetId);
  const candidates = source && target ? cherryPickCandidates(source, target) : [];

  const run = async (call: () => Promise<MergeResponse>) => {
    setBusy(true);
    setError(null);
    try {
      setStep(stepFor(await call()));
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : String(cause));
    } finally {
      setBusy(false);
    }
  };
  const resolve = (mergeId: string, request: ResolveMergeRequest) =>
    run(() => onResolve(mergeId, request));

  const canMerge =
    !busy &&
    source !== undefined &&
    target !== undefined &&
    sourceId !== targetId &&
    (strategy !== "cherry_pick" || picked.size > 0);

  const body = (() => {
    switch (step.step) {
      case "choose":
        return (
          <form
            className="flex flex-col gap-3"
            onSubmit={(event) => {
              event.preventDefault();
              if (!canMerge) return;
              const request: MergeRequest = {
                source_branch_id: sourceId,
                target_branch_id: targetId,
                strategy,
                ...(strategy === "cherry_pick"
                  ? { message_ids: candidates.filter((id) => picked.has(id)) }
                  : {}),
              };
              void run(() => onMerge(request));
            }}
          >
            <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
              <BranchSelect
                id={ids.source}
                label="Source branch"
                branches={branches}
                value={sourceId}
                onChange={(id) => {
                  setSourceId(id);
                  setPicked(new Set());
                }}
              />
              <BranchSelect
                id={ids.target}
                label="Target branch"
                branches={branches}
                value={targetId}
                onChange={(id) => {
                  setTargetId(id);
                  setPicked(new Set());
                }}
              />
            </div>
            {sourceId === targetId && (
              <p className="text-sm text-red-700 dark:text-red-400">Pick two different branches.</p>
            )}
            <fieldset className="flex flex-col gap-1">
              <legend className="text-sm font-medium">Strategy</legend>
              {strategies.map((s) => (
                <label key={s.value} className="flex items-start gap-2 text-sm">
                  <input
                    type="radio"
                    name="merge-strategy"
                    className="mt-1"
                    checked={strategy === s.value}
                    onChange={() => setStrategy(s.value)}
                  />
                  <span>
                    {s.label}
                    <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                      {s.description}
                    </span>
                  </span>
                </label>
              ))}
            </fieldset>
            {strategy === "cherry_pick" && (
              <fieldset className="flex max-h-64 flex-col gap-1 overflow-y-auto rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
                <legend className="text-sm font-medium">Messages to bring over</legend>
                {candidates.length === 0 && (
                  <p className="text-sm text-zinc-500">The target already has every message.</p>
                )}
                {candidates.map((id) => {
                  const message = byId.get(id);
                  return (
                    <label key={id} className="flex items-start gap-2 text-sm">
                      <input
                        type="checkbox"
                        className="mt-1"
                        checked={picked.has(id)}
                        onChange={(event) => {
                          const next = new Set(picked);
                          if (event.target.checked) next.add(id);
                          else next.delete(id);
                          setPicked(next);
                        }}
                      />
                      <span className="min-w-0 break-words">
                        {message ? messagePreview(message) : id}
                      </span>
                    </label>
                  );
                })}
              </fieldset>
            )}
            <div className="flex justify-end gap-2">
              <Dialog.Close type="button" className={buttonClass.secondary}>
                Cancel
              </Dialog.Close>
              <button type="submit" className={buttonClass.primary} disabled={!canMerge}>
                Merge
              </button>
            </div>
          </form>
        );
      case "confirm": {
        const { response } = step;
        const warnings = response.warnings ?? [];
        const missing = warnings.some(
          (w) => w.kind === "missing_tool_request" || w.kind === "missing_tool_result",
        );
        return (
          <div className="flex flex-col gap-3">
            <p className="text-sm">This merge would leave tool calls and results apart:</p>
            <WarningList warnings={warnings} />
            <div className="flex flex-wrap justify-end gap-2">
              <button
                type="button"
                className={buttonClass.secondary}
                disabled={busy}
                onClick={() => void resolve(response.merge_id, { cancel: true })}
              >
                Cancel
              </button>
              {missing && (
                <button
                  type="button"
                  className={buttonClass.secondary}
                  disabled={busy}
                  onClick={() =>
                    void resolve(response.merge_id, { proceed: true, include_dependencies: true })
                  }
                >
                  Proceed with dependencies
                </button>
              )}
              <button
                type="button"
                className={buttonClass.primary}
                disabled={busy}
                onClick={() => void resolve(response.merge_id, { proceed: true })}
              >
                Proceed
              </button>
            </div>
          </div>
        );
      }
      case "conflicts": {
        const { response } = step;
        return (
          <div className="flex flex-col gap-3">
            <WarningList warnings={response.warnings ?? []} />
            <ConflictResolver
              // a new answer with remaining conflicts starts a fresh set of choices
              key={(response.conflicts ?? []).map((c) => c.conflict_id).join(",")}
              conflicts={response.conflicts ?? []}
              messages={messages}
              busy={busy}
              onCancel={() => void resolve(response.merge_id, { cancel: true })}
              onSubmit={(resolutions) => void resolve(response.merge_id, { resolutions })}
            />
          </div>
        );
      }
      case "done": {
        const { response } = step;
        return (
          <div className="flex flex-col gap-3">
            <p role="status" className="text-sm font-medium">
              {response.status === "cancelled" ? "Merge cancelled." : "Merged."}
            </p>
            <WarningList warnings={response.warnings ?? []} />
            <div className="flex justify-end">
              <button
                type="button"
                className={buttonClass.primary}
                onClick={() => onOpenChange(false)}
              >
                Close
              </button>
            </div>
          </div>
        );
      }
      default:
        return unreachable(step);
    }
  })();

  return (
    <>
      {body}
      {error !== null && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </>
  );
}

/** One labelled branch picker (the dialog has two: source and target). */
function BranchSelect(props: {
  id: string;
  label: string;
  branches: readonly Branch[];
  value: string;
  onChange: (branchId: string) => void;
}) {
  return (
    <div>
      <label htmlFor={props.id} className="text-sm font-medium">
        {props.label}
      </label>
      <select
        id={props.id}
        className={inputClass}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
      >
        {props.branches.map((b) => (
          <option key={b.id} value={b.id}>
            {b.name}
          </option>
        ))}
      </select>
    </div>
  );
}
