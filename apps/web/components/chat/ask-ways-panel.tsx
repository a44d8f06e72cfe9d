"use client";

import type {
  ParallelCandidate,
  ParallelStrategyName,
  SessionModel,
  ThinkingLevel,
} from "@arbor/core/browser";
import type { ModelOption } from "@arbor/ui";
import { useId, useState } from "react";
import { buttonClass, inputClass } from "../styles";

// "Ask N ways", step one: the candidates the composer's text goes to (issue #14). Each is the
// session's settings with its own model, temperature, thinking level or system prompt; the
// strategy says how one answer is chosen. Shown above the composer; Ask sends, Cancel keeps the
// text in the box.

export const MAX_WAYS = 8;

interface Draft {
  label: string;
  /** "" → the session's model; else `protocol model` */
  model: string;
  temperature: string;
  thinking: ThinkingLevel | "";
  systemPrompt: string;
}

const DEFAULT_DRAFTS: Draft[] = [
  { label: "Precise", model: "", temperature: "0", thinking: "", systemPrompt: "" },
  { label: "Balanced", model: "", temperature: "0.7", thinking: "", systemPrompt: "" },
  { label: "Creative", model: "", temperature: "1", thinking: "", systemPrompt: "" },
];

const THINKING: ThinkingLevel[] = ["off", "minimal", "low", "medium", "high"];

const STRATEGIES: Array<{ value: ParallelStrategyName; label: string }> = [
  { value: "llm_judge", label: "A judge model picks the best" },
  { value: "pick_first", label: "Always the first" },
  { value: "token_efficient", label: "The shortest (fewest tokens)" },
  { value: "elaborate", label: "The most thorough (most tokens)" },
];

const keyOf = (model: SessionModel) => `${model.protocol} ${model.model}`;

/** The request's candidates from the drafts; an error names the row and field. */
function candidatesOf(
  drafts: readonly Draft[],
  models: readonly ModelOption[],
): { ok: true; candidates: ParallelCandidate[] } | { ok: false; error: string } {
  const candidates: ParallelCandidate[] = [];
  for (const [i, draft] of drafts.entries()) {
    const candidate: ParallelCandidate = {};
    if (draft.label.trim() !== "") candidate.label = draft.label.trim();
    if (draft.model !== "") {
      const option = models.find((m) => keyOf(m.model) === draft.model);
      if (option) candidate.model = { protocol: option.model.protocol, model: option.model.model };
    }
    if (draft.temperature.trim() !== "") {
      const t = Number(draft.temperature);
      if (!Number.isFinite(t) || t < 0 || t > 2) {
        return { ok: false, error: `Way ${i + 1}: the temperature is a number from 0 to 2.` };
      }
      candidate.temperature = t;
    }
    if (draft.thinking !== "") candidate.thinking_level = draft.thinking;
    if (draft.systemPrompt.trim() !== "") candidate.system_prompt = draft.systemPrompt;
    candidates.push(candidate);
  }
  return { ok: true, candidates };
}

export interface AskWaysPanelProps {
  text: string;
  models: readonly ModelOption[];
  onAsk: (candidates: ParallelCandidate[], strategy: ParallelStrategyName) => void;
  onCancel: () => void;
}

export function AskWaysPanel({ text, models, onAsk, onCancel }: AskWaysPanelProps) {
  const [drafts, setDrafts] = useState<Draft[]>(DEFAULT_DRAFTS);
  const [strategy, setStrategy] = useState<ParallelStrategyName>("llm_judge");
  const [error, setError] = useState<string | undefined>();
  const id = useId();
  const patch = (index: number, change: Partial<Draft>) =>
    setDrafts((list) => list.map((d, i) => (i === index ? { ...d, ...change } : d)));

  return (
    <section
      aria-label="Ask N ways"
      className="flex flex-col gap-2 rounded-xl border border-zinc-200 bg-white p-3 text-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div className="flex items-center justify-between gap-2">
        <h2 className="font-semibold">Ask {drafts.length} ways</h2>
        <span className="truncate text-xs text-zinc-500" title={text}>
          “{text.length > 60 ? `${text.slice(0, 60)}…` : text}”
        </span>
      </div>
      <ol className="flex flex-col gap-2">
        {drafts.map((draft, index) => (
          <li
            key={index}
            aria-label={`Way ${index + 1}`}
            className="grid grid-cols-2 gap-2 rounded-lg border border-zinc-200 p-2 sm:grid-cols-[1fr_1.4fr_5rem_6rem_auto] dark:border-zinc-800"
          >
            <label className="flex flex-col gap-0.5 text-xs">
              Label
              <input
                className={inputClass}
                value={draft.label}
                onChange={(e) => patch(index, { label: e.target.value })}
              />
            </label>
            <label className="flex flex-col gap-0.5 text-xs">
              Model
              <select
                className={inputClass}
                value={draft.model}
                onChange={(e) => patch(index, { model: e.target.value })}
              >
                <option value="">The session's model</option>
                {models.map((m) => (
                  <option key={keyOf(m.model)} value={keyOf(m.model)}>
                    {m.label}
                  </option>
                ))}
              </select>
            </label>
            <label className="flex flex-col gap-0.5 text-xs">
              Temperature
              <input
                className={inputClass}
                inputMode="decimal"
                value={draft.temperature}
                onChange={(e) => patch(index, { temperature: e.target.value })}
              />
            </label>
            <label className="flex flex-col gap-0.5 text-xs">
              Thinking
              <select
                className={inputClass}
                value={draft.thinking}
                onChange={(e) => patch(index, { thinking: e.target.value as ThinkingLevel | "" })}
              >
                <option value="">Session's</option>
                {THINKING.map((level) => (
                  <option key={level} value={level}>
                    {level}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              className={`${buttonClass.ghost} self-end`}
              disabled={drafts.length <= 2}
              aria-label={`Remove way ${index + 1}`}
              onClick={() => setDrafts((list) => list.filter((_, i) => i !== index))}
            >
              ✕
            </button>
            <label className="col-span-full flex flex-col gap-0.5 text-xs">
              System prompt (optional, replaces the session's for this way)
              <textarea
                className={inputClass}
                rows={1}
                value={draft.systemPrompt}
                onChange={(e) => patch(index, { systemPrompt: e.target.value })}
              />
            </label>
          </li>
        ))}
      </ol>
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          className={buttonClass.secondary}
          disabled={drafts.length >= MAX_WAYS}
          onClick={() =>
            setDrafts((list) => [
              ...list,
              { label: "", model: "", temperature: "", thinking: "", systemPrompt: "" },
            ])
          }
        >
          Add a way
        </button>
        <label htmlFor={`${id}-strategy`} className="ml-auto text-xs">
          Choose by
        </label>
        <select
          id={`${id}-strategy`}
          className={`${inputClass} w-auto`}
          value={strategy}
          onChange={(e) => setStrategy(e.target.value as ParallelStrategyName)}
        >
          {STRATEGIES.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
      {error !== undefined && (
        <p role="alert" className="text-xs text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <button type="button" className={buttonClass.ghost} onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className={buttonClass.primary}
          onClick={() => {
            const built = candidatesOf(drafts, models);
            if (!built.ok) {
              setError(built.error);
              return;
            }
            onAsk(built.candidates, strategy);
          }}
        >
          Ask {drafts.length} ways
        </button>
      </div>
    </section>
  );
}
