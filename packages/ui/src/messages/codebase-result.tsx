"use client";

import type {
  CodebaseSearchDetails,
  FindDefinitionDetails,
  FindReferencesDetails,
  OverviewTreeNode,
  ProjectOverview,
} from "@arbor/core/browser";
import type { ReactNode } from "react";

// The codebase tools' results (issue #12) as lists of `file:line` links that open the file view at
// that line, and the project overview as a small tree. Built from the tool result's `details`;
// anything that does not have the expected shape renders nothing (the card shows the text).

export type OpenFile = (path: string, line: number) => void;

const linkClass =
  "font-mono text-sky-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-sky-300";
const snippetClass = "block truncate font-mono text-xs text-zinc-600 dark:text-zinc-400";

function FileLink({
  path,
  line,
  onOpenFile,
}: {
  path: string;
  line: number;
  onOpenFile?: OpenFile | undefined;
}) {
  const label = `${path}:${line}`;
  if (onOpenFile === undefined) return <code className="font-mono">{label}</code>;
  return (
    <button
      type="button"
      className={linkClass}
      aria-label={`Open ${label}`}
      onClick={() => onOpenFile(path, line)}
    >
      {label}
    </button>
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

function SearchResults({
  details,
  onOpenFile,
}: {
  details: CodebaseSearchDetails;
  onOpenFile?: OpenFile | undefined;
}) {
  return (
    <ol aria-label={`Results for ${details.query}`} className="flex flex-col gap-1 text-sm">
      {details.results.map((hit) => (
        <li key={`${hit.path}:${hit.line}`}>
          <FileLink path={hit.path} line={hit.line} onOpenFile={onOpenFile} />
          {hit.kind !== undefined ? (
            <span className="ml-2 text-xs text-zinc-500">
              {hit.kind} {hit.name}
            </span>
          ) : null}
          <span className={snippetClass}>{hit.snippet}</span>
        </li>
      ))}
      {details.omitted > 0 ? (
        <li className="text-xs text-zinc-500">… {details.omitted} more</li>
      ) : null}
    </ol>
  );
}

function DefinitionResults({
  details,
  onOpenFile,
}: {
  details: FindDefinitionDetails;
  onOpenFile?: OpenFile | undefined;
}) {
  if (details.definitions.length === 0) {
    return (
      <p className="text-sm">
        No definition of <code className="font-mono">{details.symbol}</code>
        {details.suggestions.length > 0 ? (
          <>
            . Did you mean: <code className="font-mono">{details.suggestions.join(", ")}</code>?
          </>
        ) : null}
      </p>
    );
  }
  return (
    <ol aria-label={`Definitions of ${details.symbol}`} className="flex flex-col gap-1 text-sm">
      {details.definitions.map((def) => (
        <li key={`${def.path}:${def.line}`}>
          <FileLink path={def.path} line={def.line} onOpenFile={onOpenFile} />
          <span className="ml-2 text-xs text-zinc-500">
            {def.kind}
            {def.container !== undefined ? ` in ${def.container}` : ""}
          </span>
          <span className={snippetClass}>{def.signature}</span>
        </li>
      ))}
    </ol>
  );
}

function ReferenceResults({
  details,
  onOpenFile,
}: {
  details: FindReferencesDetails;
  onOpenFile?: OpenFile | undefined;
}) {
  return (
    <div className="flex flex-col gap-2 text-sm">
      <p>
        {details.total} reference{details.total === 1 ? "" : "s"} in {details.files} file
        {details.files === 1 ? "" : "s"}
      </p>
      <ul aria-label={`References to ${details.symbol}`} className="flex flex-col gap-2">
        {details.groups.map((group) => (
          <li key={group.path}>
            <span className="font-mono">{group.path}</span>
            <span className="ml-2 text-xs text-zinc-500">({group.count})</span>
            <ul className="ml-4">
              {group.lines.map((ref) => (
                <li key={ref.line}>
                  <FileLink path={group.path} line={ref.line} onOpenFile={onOpenFile} />
                  {ref.definition ? (
                    <span className="ml-2 text-xs text-zinc-500">definition</span>
                  ) : null}
                  <span className={snippetClass}>{ref.text}</span>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      {details.omitted > 0 ? (
        <p className="text-xs text-zinc-500">… {details.omitted} more not shown</p>
      ) : null}
    </div>
  );
}

function TreeNodes({ nodes }: { nodes: readonly OverviewTreeNode[] }): ReactNode {
  return (
    <ul className="ml-4 border-l border-zinc-200 pl-2 dark:border-zinc-700">
      {nodes.map((node) => (
        <li key={node.path}>
          <span className="font-mono">{node.name}/</span>
          <span className="ml-2 text-xs text-zinc-500">
            {node.files} files · {node.lines} lines
            {node.moreDirs !== undefined ? ` · ${node.moreDirs} more dirs` : ""}
          </span>
          {node.children !== undefined && node.children.length > 0 ? (
            <TreeNodes nodes={node.children} />
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function Overview({
  details,
  onOpenFile,
}: {
  details: ProjectOverview;
  onOpenFile?: OpenFile | undefined;
}) {
  return (
    <div className="flex flex-col gap-2 text-sm">
      <p>
        {details.files} files · {details.lines} lines ·{" "}
        {details.languages
          .slice(0, 5)
          .map((l) => `${l.language} ${l.percent}%`)
          .join(", ")}
      </p>
      {details.entryPoints.length > 0 ? (
        <p>
          Entry points:{" "}
          {details.entryPoints.map((entry, i) => (
            <span key={entry}>
              {i > 0 ? ", " : ""}
              <FileLink path={entry} line={1} onOpenFile={onOpenFile} />
            </span>
          ))}
        </p>
      ) : null}
      {details.manifests.map((m) => (
        <p key={m.path} className="text-xs">
          <span className="font-mono">{m.path}</span>:{" "}
          {m.dependencies.slice(0, 15).join(", ") || "no dependencies"}
          {m.dependencies.length > 15 ? ` … ${m.dependencies.length - 15} more` : ""}
        </p>
      ))}
      <div role="tree" aria-label="Project structure">
        <span className="font-mono">{details.tree.name}</span>
        <TreeNodes nodes={details.tree.children ?? []} />
      </div>
    </div>
  );
}

/** The structured view of a codebase tool's result, or null for other tools and unknown shapes. */
export function codebaseResultView(
  toolName: string,
  details: unknown,
  onOpenFile?: OpenFile | undefined,
): ReactNode {
  if (!isObject(details)) return null;
  switch (toolName) {
    case "codebase_search":
      return Array.isArray(details.results) ? (
        <SearchResults
          details={details as unknown as CodebaseSearchDetails}
          onOpenFile={onOpenFile}
        />
      ) : null;
    case "find_definition":
      return Array.isArray(details.definitions) && Array.isArray(details.suggestions) ? (
        <DefinitionResults
          details={details as unknown as FindDefinitionDetails}
          onOpenFile={onOpenFile}
        />
      ) : null;
    case "find_references":
      return Array.isArray(details.groups) ? (
        <ReferenceResults
          details={details as unknown as FindReferencesDetails}
          onOpenFile={onOpenFile}
        />
      ) : null;
    case "get_project_overview":
      return isObject(details.tree) && Array.isArray(details.languages) ? (
        <Overview details={details as unknown as ProjectOverview} onOpenFile={onOpenFile} />
      ) : null;
    default:
      return null;
  }
}
