"use client";

import type { Branch, UpdateBranchRequest } from "@arbor/core/browser";
import * as Dialog from "@radix-ui/react-dialog";
import { useId, useState } from "react";
import { DialogPanel } from "../dialog.js";
import { buttonClass, inputClass } from "../styles.js";

// One branch's settings: its name, its own system prompt (the base prompt it falls back to is
// shown), its own processing pipeline, and deleting it. Only what changed is sent.

export interface BranchSettingsProps {
  branch: Pick<Branch, "id" | "name" | "system_prompt" | "pipeline">;
  /** the active branch cannot be deleted: switch to another one first */
  active: boolean;
  /** what the branch uses without a prompt of its own: the session's base prompt or the default */
  basePrompt: string;
  /** the processors a branch without its own pipeline runs */
  defaultPipeline: readonly string[];
  /** rejects with the server's message when the change is refused (shown in the dialog) */
  onSave: (patch: UpdateBranchRequest) => Promise<void>;
  onDelete: () => Promise<void>;
}

interface Draft {
  name: string;
  prompt: string;
  pipeline: string;
}

function draftOf(branch: BranchSettingsProps["branch"]): Draft {
  return {
    name: branch.name,
    prompt: branch.system_prompt ?? "",
    pipeline: branch.pipeline?.processors.join(", ") ?? "",
  };
}

/** The fields of `draft` that differ from `branch`, as the PATCH body. Exported for tests. */
export function branchPatch(
  branch: BranchSettingsProps["branch"],
  draft: Draft,
): UpdateBranchRequest {
  const patch: UpdateBranchRequest = {};
  const name = draft.name.trim();
  if (name !== branch.name) patch.name = name;
  const prompt = draft.prompt.trim() === "" ? undefined : draft.prompt;
  if (prompt !== branch.system_prompt) patch.system_prompt = prompt ?? null;
  const processors = draft.pipeline
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const current = branch.pipeline?.processors ?? [];
  if (processors.join(",") !== current.join(",")) {
    patch.pipeline = processors.length === 0 ? null : { processors };
  }
  return patch;
}

export function BranchSettings({
  branch,
  active,
  basePrompt,
  defaultPipeline,
  onSave,
  onDelete,
}: BranchSettingsProps) {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<Draft>(() => draftOf(branch));
  const [error, setError] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const ids = { name: useId(), prompt: useId(), pipeline: useId() };
  const set = (patch: Partial<Draft>) => setDraft((previous) => ({ ...previous, ...patch }));

  const run = async (action: () => Promise<void>) => {
    setError(null);
    try {
      await action();
      setOpen(false);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const save = () =>
    run(async () => {
      const patch = branchPatch(branch, draft);
      if (Object.keys(patch).length > 0) await onSave(patch);
    });

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (next) {
          setDraft(draftOf(branch));
          setError(null);
          setConfirmDelete(false);
        }
        setOpen(next);
      }}
    >
      <Dialog.Trigger
        className={buttonClass.ghost}
        aria-label={`Settings of branch ${branch.name}`}
      >
        <span aria-hidden="true">⚙</span>
      </Dialog.Trigger>
      <DialogPanel title={`Branch ${branch.name}`}>
        <form
          className="flex flex-col gap-4"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.name} className="text-sm font-medium">
              Name
            </label>
            <input
              id={ids.name}
              className={inputClass}
              value={draft.name}
              maxLength={100}
              onChange={(event) => set({ name: event.target.value })}
            />
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.prompt} className="text-sm font-medium">
              System prompt of this branch
            </label>
            <textarea
              id={ids.prompt}
              className={`${inputClass} min-h-24`}
              value={draft.prompt}
              placeholder="Empty: the base prompt below"
              onChange={(event) => set({ prompt: event.target.value })}
            />
            <details className="text-xs" open={draft.prompt.trim() === ""}>
              <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
                Base prompt (used when the branch has none)
              </summary>
              <section aria-label="Base prompt">
                <pre className="mt-1 max-h-40 overflow-auto rounded-md bg-zinc-100 p-2 whitespace-pre-wrap dark:bg-zinc-800">
                  {basePrompt}
                </pre>
              </section>
            </details>
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.pipeline} className="text-sm font-medium">
              Message processing steps (comma-separated)
            </label>
            <p id={`${ids.pipeline}-help`} className="text-xs text-zinc-600 dark:text-zinc-400">
              What Arbor does to each message before the model gets it, in order: file_reference
              reads the files you mention, tool_enhancement describes the tools, system_prompt adds
              the instructions, optimization shortens older history to fit. Leave empty for the
              default.
            </p>
            <input
              id={ids.pipeline}
              aria-describedby={`${ids.pipeline}-help`}
              className={inputClass}
              value={draft.pipeline}
              placeholder={`Default: ${defaultPipeline.join(", ")}`}
              onChange={(event) => set({ pipeline: event.target.value })}
            />
          </div>

          {error !== null && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {error}
            </p>
          )}
          <div className="flex flex-wrap items-center justify-between gap-2">
            {active ? (
              <span className="text-xs text-zinc-500 dark:text-zinc-400">
                The active branch cannot be deleted: switch to another branch first.
              </span>
            ) : confirmDelete ? (
              <button
                type="button"
                className={buttonClass.secondary}
                onClick={() => void run(onDelete)}
              >
                Delete {branch.name} for good
              </button>
            ) : (
              <button
                type="button"
                className={buttonClass.ghost}
                onClick={() => setConfirmDelete(true)}
              >
                Delete branch
              </button>
            )}
            <div className="flex gap-2">
              <Dialog.Close type="button" className={buttonClass.secondary}>
                Cancel
              </Dialog.Close>
              <button type="submit" className={buttonClass.primary}>
                Save
              </button>
            </div>
          </div>
        </form>
      </DialogPanel>
    </Dialog.Root>
  );
}
