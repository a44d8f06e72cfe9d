"use client";

import type {
  FoldingSettings,
  SandboxSettingsView,
  SessionConfig,
  SessionModel,
  ThinkingLevel,
} from "@arbor/core/browser";
import { useId } from "react";
import { sandboxFixText, sandboxText } from "./sandbox-notice.js";
import { inputClass } from "./styles.js";

// The session settings that were reachable only through the API (issue #27, case 7): the model's
// limits (context window, max tokens, thinking level), the session's system prompt, the auto-loop
// iteration timeout, the folding budgets, and the sandbox (read-only: the server decides it).
// The draft holds the inputs as typed; limitsFromDraft turns it into a config patch, or says which
// field is wrong.

export const thinkingLabels: Record<ThinkingLevel, string> = {
  off: "Off",
  minimal: "Minimal",
  low: "Low",
  medium: "Medium",
  high: "High",
};

export interface LimitsDraft {
  contextWindow: string;
  /** "" → the provider's default */
  maxTokens: string;
  thinking: ThinkingLevel;
  systemPrompt: string;
  /** seconds, as typed */
  iterationTimeout: string;
  foldDefaultBudget: string;
  foldMaxBudget: string;
  foldMaxDepth: string;
}

type LimitsConfig = Partial<
  Pick<SessionConfig, "model" | "system_prompt" | "auto_loop_iteration_timeout_ms" | "folding">
>;

/** the iteration timeout when a config predates the field (SessionConfigSchema's default) */
const DEFAULT_ITERATION_TIMEOUT_MS = 30_000;

export function limitsDraftOf(config: LimitsConfig, defaultContextWindow?: number): LimitsDraft {
  const model = config.model;
  return {
    contextWindow: String(model?.context_window ?? defaultContextWindow ?? ""),
    maxTokens: model?.max_tokens === undefined ? "" : String(model.max_tokens),
    thinking: model?.thinking_level ?? "off",
    systemPrompt: config.system_prompt ?? "",
    iterationTimeout: String(
      (config.auto_loop_iteration_timeout_ms ?? DEFAULT_ITERATION_TIMEOUT_MS) / 1000,
    ),
    foldDefaultBudget: String(config.folding?.default_budget ?? ""),
    foldMaxBudget: String(config.folding?.max_budget ?? ""),
    foldMaxDepth: String(config.folding?.max_depth ?? ""),
  };
}

export interface LimitsPatch {
  model?: SessionModel;
  system_prompt?: string;
  auto_loop_iteration_timeout_ms?: number;
  folding?: FoldingSettings;
}

export type LimitsResult = { ok: true; patch: LimitsPatch } | { ok: false; error: string };

function wholeNumber(text: string): number | undefined {
  const trimmed = text.trim();
  const value = Number(trimmed);
  return /^\d+$/.test(trimmed) && value >= 1 ? value : undefined;
}

/**
 * The draft → the fields that changed, or the first wrong field's message. `model` is the model
 * the session will use (the one chosen in the same dialog); its limits are changed only when the
 * session names a model, since the app's default model has no per-session limits to keep.
 */
export function limitsFromDraft(
  draft: LimitsDraft,
  config: LimitsConfig,
  model: SessionModel | undefined,
): LimitsResult {
  const patch: LimitsPatch = {};
  if (model !== undefined) {
    const contextWindow = wholeNumber(draft.contextWindow);
    if (contextWindow === undefined) {
      return { ok: false, error: "Context window must be a whole number of tokens from 1" };
    }
    const maxTokens = draft.maxTokens.trim() === "" ? undefined : wholeNumber(draft.maxTokens);
    if (draft.maxTokens.trim() !== "" && maxTokens === undefined) {
      return { ok: false, error: "Max tokens must be a whole number from 1, or empty" };
    }
    const { max_tokens: _dropped, ...rest } = model;
    const next: SessionModel = {
      ...rest,
      context_window: contextWindow,
      thinking_level: draft.thinking,
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    };
    const current = config.model;
    const same =
      current !== undefined &&
      current.protocol === next.protocol &&
      current.model === next.model &&
      current.context_window === next.context_window &&
      current.max_tokens === next.max_tokens &&
      current.thinking_level === next.thinking_level;
    if (!same) patch.model = next;
  }
  if (draft.systemPrompt !== (config.system_prompt ?? "")) patch.system_prompt = draft.systemPrompt;
  const seconds = Number(draft.iterationTimeout.trim());
  if (draft.iterationTimeout.trim() === "" || !Number.isFinite(seconds) || seconds <= 0) {
    return { ok: false, error: "Iteration timeout must be a number of seconds above 0" };
  }
  const timeoutMs = Math.round(seconds * 1000);
  if (timeoutMs !== (config.auto_loop_iteration_timeout_ms ?? DEFAULT_ITERATION_TIMEOUT_MS)) {
    patch.auto_loop_iteration_timeout_ms = timeoutMs;
  }
  if (config.folding !== undefined) {
    const defaultBudget = wholeNumber(draft.foldDefaultBudget);
    const maxBudget = wholeNumber(draft.foldMaxBudget);
    const maxDepth = wholeNumber(draft.foldMaxDepth);
    if (defaultBudget === undefined || maxBudget === undefined) {
      return { ok: false, error: "Fold budgets must be whole numbers of tokens from 1" };
    }
    if (defaultBudget > maxBudget) {
      return { ok: false, error: "A fold's default budget cannot exceed its largest budget" };
    }
    if (maxDepth === undefined) {
      return { ok: false, error: "Fold depth must be a whole number from 1" };
    }
    const current = config.folding;
    if (
      defaultBudget !== current.default_budget ||
      maxBudget !== current.max_budget ||
      maxDepth !== current.max_depth
    ) {
      patch.folding = {
        ...current,
        default_budget: defaultBudget,
        max_budget: maxBudget,
        max_depth: maxDepth,
      };
    }
  }
  return { ok: true, patch };
}

const hint = "text-xs text-zinc-600 dark:text-zinc-400";

function NumberField(props: {
  label: string;
  value: string;
  unit: string;
  invalid: boolean;
  placeholder?: string;
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-0.5">
      <label htmlFor={id} className="text-sm">
        {props.label}
      </label>
      <div className="flex items-center gap-2">
        <input
          id={id}
          inputMode="numeric"
          className={inputClass}
          value={props.value}
          placeholder={props.placeholder}
          aria-invalid={props.invalid}
          onChange={(event) => props.onChange(event.target.value)}
        />
        <span className={hint}>{props.unit}</span>
      </div>
    </div>
  );
}

export interface LimitsFieldsProps {
  draft: LimitsDraft;
  /** the session names a model: its limits can be changed here */
  hasModel: boolean;
  /** folding's budgets are shown (the config carries folding) */
  hasFolding: boolean;
  invalid: boolean;
  onChange: (change: Partial<LimitsDraft>) => void;
}

/** The model's limits and the session's own prompt (placed under the model picker). */
export function ModelLimitsFields({ draft, hasModel, invalid, onChange }: LimitsFieldsProps) {
  const ids = { thinking: useId(), prompt: useId() };
  return (
    <>
      <fieldset className="flex flex-col gap-2" disabled={!hasModel}>
        <legend className="mb-1 text-sm font-medium">Model limits</legend>
        <p className={hint}>
          {hasModel
            ? "How much the model reads and writes per request. The context window also sets when optimization starts (its trigger is a share of the window)."
            : "Choose a model above to set its limits; the app's default model uses the server's."}
        </p>
        <NumberField
          label="Context window"
          unit="tokens"
          value={draft.contextWindow}
          invalid={invalid}
          onChange={(value) => onChange({ contextWindow: value })}
        />
        <NumberField
          label="Max tokens per answer"
          unit="tokens"
          placeholder="the provider's default"
          value={draft.maxTokens}
          invalid={invalid}
          onChange={(value) => onChange({ maxTokens: value })}
        />
        <div className="flex flex-col gap-0.5">
          <label htmlFor={ids.thinking} className="text-sm">
            Thinking level
          </label>
          <select
            id={ids.thinking}
            className={inputClass}
            value={draft.thinking}
            onChange={(event) => onChange({ thinking: event.target.value as ThinkingLevel })}
          >
            {(Object.keys(thinkingLabels) as ThinkingLevel[]).map((level) => (
              <option key={level} value={level}>
                {thinkingLabels[level]}
              </option>
            ))}
          </select>
          <span className={hint}>
            How many tokens the model may spend reasoning before it answers (models that think).
          </span>
        </div>
      </fieldset>
      <div className="flex flex-col gap-1">
        <label htmlFor={ids.prompt} className="text-sm font-medium">
          System prompt
        </label>
        <textarea
          id={ids.prompt}
          rows={4}
          className={`${inputClass} font-mono text-xs`}
          value={draft.systemPrompt}
          placeholder="Empty: the app's default prompt"
          onChange={(event) => onChange({ systemPrompt: event.target.value })}
        />
        <span className={hint}>
          The session's base instructions to the model, sent with every request; a branch may have
          its own. Empty uses the app's default.
        </span>
      </div>
    </>
  );
}

/** The auto-loop's iteration timeout (placed with the tool settings). */
export function IterationTimeoutField({ draft, invalid, onChange }: LimitsFieldsProps) {
  return (
    <fieldset className="flex flex-col gap-1">
      <legend className="mb-1 text-sm font-medium">Auto-loop</legend>
      <NumberField
        label="Iteration timeout"
        unit="seconds"
        value={draft.iterationTimeout}
        invalid={invalid}
        onChange={(value) => onChange({ iterationTimeout: value })}
      />
      <p className={hint}>
        One iteration is a model call and the tools it asks for; an iteration that takes longer is
        cut off.
      </p>
    </fieldset>
  );
}

/** Folding's budgets (placed under the folding toggle). */
export function FoldingBudgetFields({ draft, hasFolding, invalid, onChange }: LimitsFieldsProps) {
  if (!hasFolding) return null;
  return (
    <div className="mt-1 ml-6 flex flex-col gap-2">
      <NumberField
        label="Fold budget"
        unit="tokens"
        value={draft.foldDefaultBudget}
        invalid={invalid}
        onChange={(value) => onChange({ foldDefaultBudget: value })}
      />
      <NumberField
        label="Largest fold budget"
        unit="tokens"
        value={draft.foldMaxBudget}
        invalid={invalid}
        onChange={(value) => onChange({ foldMaxBudget: value })}
      />
      <NumberField
        label="Fold depth"
        unit="levels"
        value={draft.foldMaxDepth}
        invalid={invalid}
        onChange={(value) => onChange({ foldMaxDepth: value })}
      />
      <p className={hint}>
        A fold gets the first budget unless the model asks for more, up to the largest; folds nest
        at most this deep.
      </p>
    </div>
  );
}

/** The sandbox, read-only: the server's environment decides it, and this says how to change it. */
export function SandboxSection({ sandbox }: { sandbox: SandboxSettingsView }) {
  const fix = sandboxFixText(sandbox);
  return (
    <section className="flex flex-col gap-1" aria-label="Sandbox">
      <h3 className="mb-1 text-sm font-medium">Sandbox</h3>
      <p
        data-testid="sandbox-mode"
        className={
          sandbox.mode === "bubblewrap"
            ? "text-xs text-zinc-600 dark:text-zinc-400"
            : "text-xs text-amber-700 dark:text-amber-400"
        }
      >
        {sandbox.mode !== "bubblewrap" && <span aria-hidden="true">⚠ </span>}
        {sandboxText(sandbox)}
        {fix !== undefined && ` ${fix}`}
      </p>
      <p data-testid="sandbox-how-to" className={hint}>
        Read-only here: the server sets it. To change it, start Arbor with{" "}
        <code>ARBOR_SANDBOX=auto</code>, <code>bubblewrap</code> or <code>off</code> (and{" "}
        <code>ARBOR_SANDBOX_NETWORK=1</code> to let commands reach the network); see
        docs/security.md.
      </p>
    </section>
  );
}
