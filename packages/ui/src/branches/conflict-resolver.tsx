"use client";

import type {
  ConflictResolution,
  ContextMessage,
  MergeConflict,
  ResolutionKind,
} from "@arbor/core/browser";
import { useId, useState } from "react";
import { Markdown } from "../messages/markdown.js";
import { messageExcerpt, nameMessagesIn } from "../messages/preview.js";
import { unreachable } from "../state-label.js";
import { buttonClass, inputClass } from "../styles.js";

// A rebase's conflicts side by side: the source's messages against the target's, and per conflict
// a choice of keep source / keep target / keep both / custom text. Submits once every conflict
// has a complete answer (custom needs text), since the merge completes only then.

export const resolutionLabels: Record<ResolutionKind, string> = {
  keep_source: "Keep source",
  keep_target: "Keep target",
  keep_both: "Keep both",
  custom: "Custom text",
};

export interface ConflictChoice {
  resolution: ResolutionKind;
  text: string;
}

/** The user's choices → the wire resolutions; undefined while any conflict is unanswered. */
export function resolutionsFrom(
  conflicts: readonly MergeConflict[],
  choices: Readonly<Record<string, ConflictChoice>>,
): ConflictResolution[] | undefined {
  const out: ConflictResolution[] = [];
  for (const conflict of conflicts) {
    const choice = choices[conflict.conflict_id];
    if (!choice) return undefined;
    const conflict_id = conflict.conflict_id;
    switch (choice.resolution) {
      case "keep_source":
      case "keep_target":
      case "keep_both":
        out.push({ conflict_id, resolution: choice.resolution });
        break;
      case "custom": {
        const text = choice.text.trim();
        if (text === "") return undefined;
        out.push({ conflict_id, resolution: "custom", text });
        break;
      }
      default:
        return unreachable(choice.resolution);
    }
  }
  return out;
}

function MessageColumn({
  title,
  ids,
  byId,
}: {
  title: string;
  ids: readonly string[];
  byId: ReadonlyMap<string, ContextMessage>;
}) {
  return (
    <div className="min-w-0 flex-1 rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
      <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">{title}</h4>
      <ol aria-label={`${title} messages`} className="flex flex-col gap-1 text-sm">
        {ids.length === 0 && <li className="text-xs text-zinc-500">No messages</li>}
        {ids.map((id) => {
          const message = byId.get(id);
          return (
            <li key={id} className="rounded bg-zinc-50 px-2 py-1 dark:bg-zinc-800/60">
              {message ? (
                <>
                  <span className="text-xs font-medium capitalize text-zinc-500 dark:text-zinc-400">
                    {message.role}
                  </span>
                  <Markdown
                    text={messageExcerpt(message)}
                    className="max-h-48 overflow-y-auto [&_p]:my-1"
                  />
                </>
              ) : (
                <span className="text-xs text-zinc-500">A message not loaded in this view</span>
              )}
            </li>
          );
        })}
      </ol>
    </div>
  );
}

function ConflictItem({
  conflict,
  index,
  byId,
  choice,
  onChoose,
}: {
  conflict: MergeConflict;
  index: number;
  byId: ReadonlyMap<string, ContextMessage>;
  choice: ConflictChoice | undefined;
  onChoose: (choice: ConflictChoice) => void;
}) {
  const textId = useId();
  const suggested = new Map(
    conflict.suggested_resolutions.map((s) => [s.resolution, s.description]),
  );
  // Offer the resolutions core says give a valid branch; all four if it named none.
  const offered = (Object.keys(resolutionLabels) as ResolutionKind[]).filter(
    (kind) => suggested.size === 0 || suggested.has(kind),
  );
  const name = `Conflict ${index + 1}`;
  return (
    <section
      aria-label={name}
      className="flex flex-col gap-2 rounded-lg border border-amber-300 p-3 dark:border-amber-800"
    >
      <h3 className="text-sm font-semibold">
        {name}
        {conflict.path && <code className="ml-2 font-mono text-xs">{conflict.path}</code>}
      </h3>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        {nameMessagesIn(conflict.description, byId)}
      </p>
      <div className="flex flex-col gap-2 md:flex-row">
        <MessageColumn title="Source" ids={conflict.source_message_ids} byId={byId} />
        <MessageColumn title="Target" ids={conflict.target_message_ids} byId={byId} />
      </div>
      <fieldset className="flex flex-col gap-1">
        <legend className="text-sm font-medium">Resolution for {name.toLowerCase()}</legend>
        {offered.map((kind) => (
          <label key={kind} className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name={`resolution-${conflict.conflict_id}`}
              className="mt-1"
              checked={choice?.resolution === kind}
              onChange={() => onChoose({ resolution: kind, text: choice?.text ?? "" })}
            />
            <span>
              {resolutionLabels[kind]}
              {suggested.get(kind) && (
                <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                  {nameMessagesIn(suggested.get(kind) ?? "", byId)}
                </span>
              )}
            </span>
          </label>
        ))}
      </fieldset>
      {choice?.resolution === "custom" && (
        <div>
          <label htmlFor={textId} className="text-sm">
            Custom text for {name.toLowerCase()}
          </label>
          <textarea
            id={textId}
            className={`${inputClass} min-h-16`}
            value={choice.text}
            onChange={(event) => onChoose({ resolution: "custom", text: event.target.value })}
          />
        </div>
      )}
    </section>
  );
}

export interface ConflictResolverProps {
  conflicts: readonly MergeConflict[];
  /** the session's message pool (or at least every message the conflicts name) */
  messages: readonly ContextMessage[];
  onSubmit: (resolutions: ConflictResolution[]) => void;
  onCancel: () => void;
  busy?: boolean;
}

export function ConflictResolver({
  conflicts,
  messages,
  onSubmit,
  onCancel,
  busy = false,
}: ConflictResolverProps) {
  const [choices, setChoices] = useState<Record<string, ConflictChoice>>({});
  const byId = new Map(messages.map((m) => [m.id, m]));
  const resolutions = resolutionsFrom(conflicts, choices);
  return (
    <div className="flex flex-col gap-3">
      {conflicts.map((conflict, index) => (
        <ConflictItem
          key={conflict.conflict_id}
          conflict={conflict}
          index={index}
          byId={byId}
          choice={choices[conflict.conflict_id]}
          onChoose={(choice) =>
            setChoices((previous) => ({ ...previous, [conflict.conflict_id]: choice }))
          }
        />
      ))}
      <div className="flex justify-end gap-2">
        <button type="button" className={buttonClass.secondary} onClick={onCancel} disabled={busy}>
          Cancel merge
        </button>
        <button
          type="button"
          className={buttonClass.primary}
          disabled={busy || resolutions === undefined}
          onClick={() => resolutions && onSubmit(resolutions)}
        >
          Resolve conflicts
        </button>
      </div>
    </div>
  );
}
