// The folder the agent works in (issue #27): its file tools, file references and commands are
// confined to it. Shown where a person sees what the agent works on: the home page and the chat.
// The chat's compact line says why behind a toggletip (a title tooltip never shows on a phone).

import { Toggletip } from "@arbor/ui";

const EXPLAINED =
  "The agent reads, searches and changes files only inside this folder, and runs commands in it.";

export function WorkspaceFolder({ path, compact = false }: { path: string; compact?: boolean }) {
  return (
    <p
      data-testid="workspace-folder"
      className={
        compact
          ? "flex min-w-0 items-center text-xs text-zinc-600 dark:text-zinc-400"
          : "rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300"
      }
    >
      {compact ? (
        <>
          <span className="min-w-0 truncate">
            Workspace folder:{" "}
            <span className="font-mono text-zinc-900 dark:text-zinc-100">{path}</span>
          </span>
          <Toggletip label="the workspace folder">
            {EXPLAINED} The server&apos;s WORKSPACE_DIR sets it.
          </Toggletip>
        </>
      ) : (
        <>
          Workspace folder:{" "}
          <span className="font-mono text-zinc-900 break-all dark:text-zinc-100">{path}</span>
          <span className="mt-1 block text-xs text-zinc-500 dark:text-zinc-400">
            {EXPLAINED} The server&apos;s WORKSPACE_DIR sets it.
          </span>
        </>
      )}
    </p>
  );
}
