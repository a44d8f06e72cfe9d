"use client";

import type { WorkspaceInstructionsResponse } from "@arbor/core/browser";
import { formatTokens, plural } from "./format.js";

// "Instructions in use": which workspace instruction files (AGENTS.md, CLAUDE.md,
// .arbor/instructions.md) the next model request gets, and what they say.

export interface InstructionsInUseProps {
  instructions: WorkspaceInstructionsResponse;
}

export function InstructionsInUse({ instructions }: InstructionsInUseProps) {
  const { files, text, max_chars } = instructions;
  return (
    <section aria-label="Instructions in use" className="flex flex-col gap-1">
      <h3 className="text-sm font-medium">Instructions in use</h3>
      {files.length === 0 ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          None: add AGENTS.md, CLAUDE.md or .arbor/instructions.md to the workspace to give the
          model standing instructions.
        </p>
      ) : (
        <>
          <ul aria-label="Instruction files" className="flex flex-col gap-0.5 text-xs">
            {files.map((file) => (
              <li key={file.path} className="flex flex-wrap items-baseline gap-x-2">
                <code className="font-mono">{file.path}</code>
                <span className="text-zinc-500">
                  {plural(file.chars, "character")}
                  {file.truncated ? " · cut at the cap" : ""}
                </span>
              </li>
            ))}
          </ul>
          <details className="text-xs">
            <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
              Show the text ({formatTokens(text.length)} of at most {formatTokens(max_chars)}{" "}
              characters)
            </summary>
            <pre className="mt-1 max-h-60 overflow-auto rounded-md bg-zinc-100 p-2 whitespace-pre-wrap dark:bg-zinc-800">
              {text}
            </pre>
          </details>
        </>
      )}
    </section>
  );
}
