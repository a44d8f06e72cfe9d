"use client";

import type { OptimizationConfig, OptimizationStrategy } from "@arbor/core/browser";
import { useId } from "react";
import { type ModelOption, modelKey } from "./model-picker.js";
import { unreachable } from "./state-label.js";
import { inputClass } from "./styles.js";

// The context optimization part of the session settings (issue #15): the strategy and how many
// recent messages it keeps, when optimization starts (trigger) and how far it shrinks (target),
// and who writes the summaries. The draft holds the inputs as typed; optimizationFromDraft turns
// it into a config, or says what is wrong.

type StrategyType = OptimizationStrategy["type"];

const strategyLabels: Record<StrategyType, string> = {
  intelligent: "Intelligent: keep recent messages, tool pairs and file references",
  recent_n: "Recent messages only",
  importance_scoring: "Importance scoring",
};

/** the summarizer select's values besides a model's key */
export const SESSION_MODEL = "session";
export const EXTRACTIVE = "extractive";

export interface OptimizationDraft {
  strategy: StrategyType;
  keep: string;
  trigger: string;
  target: string;
  /** SESSION_MODEL, EXTRACTIVE, or a model's key (modelKey) */
  summarizer: string;
}

function keepOf(strategy: OptimizationStrategy): number {
  switch (strategy.type) {
    case "recent_n":
      return strategy.n;
    case "intelligent":
    case "importance_scoring":
      return strategy.keep_recent;
    default:
      return unreachable(strategy);
  }
}

const percent = (ratio: number) => String(Math.round(ratio * 100));

export function optimizationDraftOf(config: OptimizationConfig): OptimizationDraft {
  const summary = config.summary_model;
  return {
    strategy: config.strategy.type,
    keep: String(keepOf(config.strategy)),
    trigger: percent(config.trigger_ratio),
    target: percent(config.target_ratio),
    summarizer:
      summary === undefined
        ? SESSION_MODEL
        : summary.protocol === "offline"
          ? EXTRACTIVE
          : modelKey(summary),
  };
}

export type OptimizationResult =
  | { ok: true; config: OptimizationConfig }
  | { ok: false; error: string };

function wholePercent(text: string): number | undefined {
  const value = Number(text.trim());
  return /^\d+$/.test(text.trim()) && value >= 1 && value <= 100 ? value : undefined;
}

/** The draft → an optimization config (keeping the current strategy's other fields), or why not. */
export function optimizationFromDraft(
  draft: OptimizationDraft,
  current: OptimizationConfig,
  models: readonly ModelOption[],
): OptimizationResult {
  const keep = Number(draft.keep.trim());
  if (!/^\d+$/.test(draft.keep.trim()) || keep < 1) {
    return { ok: false, error: "Recent messages to keep must be a whole number from 1" };
  }
  const trigger = wholePercent(draft.trigger);
  const target = wholePercent(draft.target);
  if (trigger === undefined || target === undefined) {
    return { ok: false, error: "The trigger and the target are percentages from 1 to 100" };
  }
  if (target >= trigger) {
    return { ok: false, error: "The target must be below the trigger" };
  }
  const same = current.strategy.type === draft.strategy ? current.strategy : undefined;
  let strategy: OptimizationStrategy;
  switch (draft.strategy) {
    case "recent_n":
      strategy = { type: "recent_n", n: keep };
      break;
    case "intelligent":
      strategy = {
        type: "intelligent",
        keep_recent: keep,
        file_reference_window: same?.type === "intelligent" ? same.file_reference_window : 30,
        summarize: same?.type === "intelligent" ? same.summarize : true,
      };
      break;
    case "importance_scoring":
      strategy = {
        type: "importance_scoring",
        keep_recent: keep,
        min_score: same?.type === "importance_scoring" ? same.min_score : 0.5,
        summarize: same?.type === "importance_scoring" ? same.summarize : true,
      };
      break;
    default:
      return unreachable(draft.strategy);
  }
  const config: OptimizationConfig = {
    strategy,
    trigger_ratio: trigger / 100,
    target_ratio: target / 100,
  };
  if (draft.summarizer === EXTRACTIVE) {
    config.summary_model = { protocol: "offline", model: "extractive" };
  } else if (draft.summarizer !== SESSION_MODEL) {
    const chosen = models.find((m) => modelKey(m.model) === draft.summarizer)?.model;
    if (chosen) config.summary_model = { protocol: chosen.protocol, model: chosen.model };
    else if (current.summary_model) config.summary_model = current.summary_model;
  }
  return { ok: true, config };
}

export interface OptimizationFieldsProps {
  draft: OptimizationDraft;
  onChange: (patch: Partial<OptimizationDraft>) => void;
  models: readonly ModelOption[];
  invalid?: boolean;
}

export function OptimizationFields({ draft, onChange, models, invalid }: OptimizationFieldsProps) {
  const ids = { keep: useId(), trigger: useId(), target: useId(), summarizer: useId() };
  const numberClass = `${inputClass} w-20`;
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="mb-1 text-sm font-medium">Context optimization</legend>
      <div className="flex flex-col gap-1">
        {(Object.keys(strategyLabels) as StrategyType[]).map((type) => (
          <label key={type} className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name="optimization-strategy"
              value={type}
              checked={draft.strategy === type}
              onChange={() => onChange({ strategy: type })}
            />
            {strategyLabels[type]}
          </label>
        ))}
      </div>
      <div className="flex flex-wrap items-end gap-3">
        <div className="flex flex-col gap-1">
          <label htmlFor={ids.keep} className="text-sm">
            Recent messages kept
          </label>
          <input
            id={ids.keep}
            inputMode="numeric"
            className={numberClass}
            value={draft.keep}
            aria-invalid={invalid}
            onChange={(event) => onChange({ keep: event.target.value })}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={ids.trigger} className="text-sm">
            Optimize at (% of window)
          </label>
          <input
            id={ids.trigger}
            inputMode="numeric"
            className={numberClass}
            value={draft.trigger}
            aria-invalid={invalid}
            onChange={(event) => onChange({ trigger: event.target.value })}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={ids.target} className="text-sm">
            Shrink to (% of window)
          </label>
          <input
            id={ids.target}
            inputMode="numeric"
            className={numberClass}
            value={draft.target}
            aria-invalid={invalid}
            onChange={(event) => onChange({ target: event.target.value })}
          />
        </div>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={ids.summarizer} className="text-sm">
          Summaries written by
        </label>
        <select
          id={ids.summarizer}
          className={inputClass}
          value={draft.summarizer}
          onChange={(event) => onChange({ summarizer: event.target.value })}
        >
          <option value={SESSION_MODEL}>The session's model</option>
          <option value={EXTRACTIVE}>Extractive: the facts word for word, no model call</option>
          {models
            .filter((option) => option.model.protocol !== "offline")
            .map((option) => (
              <option key={modelKey(option.model)} value={modelKey(option.model)}>
                {option.label}
              </option>
            ))}
        </select>
      </div>
    </fieldset>
  );
}
