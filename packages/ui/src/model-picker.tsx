"use client";

import type { SessionModel } from "@arbor/core/browser";
import { useId } from "react";

/** A model the session can switch to, e.g. "claude-sonnet-4-5 (anthropic-messages)". */
export interface ModelOption {
  /** what the list shows */
  label: string;
  model: SessionModel;
}

/** The key two options are the same model by: protocol and model name. */
export const modelKey = (model: Pick<SessionModel, "protocol" | "model">) =>
  `${model.protocol}:${model.model}`;

export interface ModelPickerProps {
  models: readonly ModelOption[];
  /** the session's model; undefined: the app's default, which is the first option */
  value: SessionModel | undefined;
  onChange: (model: SessionModel) => void;
  disabled?: boolean;
}

/**
 * The session's model, in the header: a native select (the phone's own picker), labelled for
 * screen readers. Choosing another model saves it at once; the next request uses it.
 */
export function ModelPicker({ models, value, onChange, disabled = false }: ModelPickerProps) {
  const id = useId();
  const current = value ?? models[0]?.model;
  const currentKey = current ? modelKey(current) : "";
  const known = models.some((option) => modelKey(option.model) === currentKey);
  return (
    <>
      <label htmlFor={id} className="sr-only">
        Model
      </label>
      <select
        id={id}
        value={currentKey}
        disabled={disabled || models.length === 0}
        title="The model that answers in this session"
        className="max-w-[9rem] truncate rounded-md border border-zinc-300 bg-white px-1.5 py-1 text-xs text-zinc-800 sm:max-w-[16rem] dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
        onChange={(event) => {
          const chosen = models.find((option) => modelKey(option.model) === event.target.value);
          if (chosen) onChange(chosen.model);
        }}
      >
        {!known && current && (
          <option value={currentKey}>{`${current.model} (${current.protocol})`}</option>
        )}
        {models.map((option) => (
          <option key={modelKey(option.model)} value={modelKey(option.model)}>
            {option.label}
          </option>
        ))}
      </select>
    </>
  );
}
