"use client";

import { useId, useState } from "react";
import { buttonClass, inputClass } from "./styles.js";

// The composer's `/` commands: the MCP servers' prompts. Typing `/` lists them (filtered by what
// follows); a prompt with arguments asks for them in fields; the chosen prompt is then sent (the
// server adds each of its messages to the conversation as its own).

export interface McpPromptOption {
  server: string;
  name: string;
  description?: string;
  arguments: ReadonlyArray<{ name: string; description?: string; required: boolean }>;
}

export function promptKey(prompt: McpPromptOption): string {
  return `${prompt.server}:${prompt.name}`;
}

/** The prompts a `/…` text offers: those whose `server:name` contains what follows the slash. */
export function matchingPrompts(
  text: string,
  prompts: readonly McpPromptOption[],
): readonly McpPromptOption[] {
  if (!text.startsWith("/") || /\s/.test(text)) return [];
  const needle = text.slice(1).toLowerCase();
  return prompts.filter((p) => promptKey(p).toLowerCase().includes(needle));
}

export interface PromptMenuProps {
  prompts: readonly McpPromptOption[];
  onExpand: (prompt: McpPromptOption, args: Record<string, string>) => Promise<void>;
}

export function PromptMenu({ prompts, onExpand }: PromptMenuProps) {
  const [chosen, setChosen] = useState<McpPromptOption | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const baseId = useId();

  const expand = async (prompt: McpPromptOption, args: Record<string, string>) => {
    setBusy(true);
    setError(null);
    try {
      await onExpand(prompt, args);
      setChosen(null);
      setValues({});
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  if (chosen !== null) {
    const missing = chosen.arguments.some((a) => a.required && (values[a.name] ?? "") === "");
    return (
      <fieldset
        aria-label={`Arguments of ${promptKey(chosen)}`}
        className="flex flex-col gap-2 rounded-md border border-zinc-200 p-2 dark:border-zinc-700"
      >
        <legend className="px-1 font-mono text-xs">/{promptKey(chosen)}</legend>
        {chosen.arguments.map((argument) => {
          const id = `${baseId}-${argument.name}`;
          return (
            <div key={argument.name} className="flex flex-col gap-0.5">
              <label htmlFor={id} className="text-xs">
                {argument.name}
                {argument.required ? " (required)" : ""}
                {argument.description ? ` — ${argument.description}` : ""}
              </label>
              <input
                id={id}
                className={inputClass}
                value={values[argument.name] ?? ""}
                onChange={(event) =>
                  setValues((previous) => ({ ...previous, [argument.name]: event.target.value }))
                }
              />
            </div>
          );
        })}
        {error !== null && <p className="text-xs text-red-700 dark:text-red-400">{error}</p>}
        <div className="flex justify-end gap-2">
          <button type="button" className={buttonClass.secondary} onClick={() => setChosen(null)}>
            Cancel
          </button>
          <button
            type="button"
            className={buttonClass.primary}
            disabled={missing || busy}
            onClick={() => void expand(chosen, values)}
          >
            Use prompt
          </button>
        </div>
      </fieldset>
    );
  }

  if (prompts.length === 0) return null;
  return (
    <div className="flex flex-col gap-1">
      <div
        role="listbox"
        aria-label="MCP prompts"
        className="max-h-48 overflow-y-auto rounded-md border border-zinc-200 dark:border-zinc-700"
      >
        {prompts.map((prompt) => {
          const choose = () => {
            if (prompt.arguments.length === 0) void expand(prompt, {});
            else setChosen(prompt);
          };
          return (
            <div
              key={promptKey(prompt)}
              role="option"
              tabIndex={0}
              aria-selected={false}
              onClick={choose}
              onKeyDown={(event) => {
                if (event.key === "Enter" || event.key === " ") {
                  event.preventDefault();
                  choose();
                }
              }}
              className="cursor-pointer px-2 py-1 text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 dark:hover:bg-zinc-800"
            >
              <span className="font-mono">/{promptKey(prompt)}</span>
              {prompt.description ? (
                <span className="text-zinc-500 dark:text-zinc-400"> — {prompt.description}</span>
              ) : null}
            </div>
          );
        })}
      </div>
      {error !== null && <p className="text-xs text-red-700 dark:text-red-400">{error}</p>}
    </div>
  );
}
