"use client";

import type { DiffHunk, FileDiff } from "@arbor/core/browser";
import * as ToggleGroup from "@radix-ui/react-toggle-group";
import { type ReactNode, useMemo, useState } from "react";
import { highlightLines, languageOf } from "./highlight.js";

// A file change as a person reviews it (issue #27): the path, how many lines go and come, and
// the hunks with old and new line numbers, syntax-highlighted. Unified by default; on wide
// screens a toggle shows the two sides next to each other (a phone always gets the unified view).

type Kind = "context" | "removed" | "added";

interface Row {
  kind: Kind;
  old: number | undefined;
  new: number | undefined;
  code: ReactNode[];
}

/** A hunk's lines with their numbers and highlighted code (each side highlighted as a whole). */
function rowsOf(hunk: DiffHunk, language: string | undefined): Row[] {
  const oldSide = hunk.lines.filter((l) => !l.startsWith("+")).map((l) => l.slice(1));
  const newSide = hunk.lines.filter((l) => !l.startsWith("-")).map((l) => l.slice(1));
  const oldCode = highlightLines(oldSide, language);
  const newCode = highlightLines(newSide, language);
  let o = 0;
  let n = 0;
  return hunk.lines.map((line) => {
    if (line.startsWith("-")) {
      const row: Row = {
        kind: "removed",
        old: hunk.old_start + o,
        new: undefined,
        code: oldCode[o] ?? [],
      };
      o++;
      return row;
    }
    if (line.startsWith("+")) {
      const row: Row = {
        kind: "added",
        old: undefined,
        new: hunk.new_start + n,
        code: newCode[n] ?? [],
      };
      n++;
      return row;
    }
    const row: Row = {
      kind: "context",
      old: hunk.old_start + o,
      new: hunk.new_start + n,
      code: newCode[n] ?? [],
    };
    o++;
    n++;
    return row;
  });
}

/** Side-by-side rows: context on both sides, a run of removed lines beside the added run after it. */
function pairRows(rows: readonly Row[]): Array<[Row | undefined, Row | undefined]> {
  const pairs: Array<[Row | undefined, Row | undefined]> = [];
  let i = 0;
  while (i < rows.length) {
    const row = rows[i] as Row;
    if (row.kind === "context") {
      pairs.push([row, row]);
      i++;
      continue;
    }
    const removed: Row[] = [];
    const added: Row[] = [];
    while (i < rows.length && rows[i]?.kind === "removed") removed.push(rows[i++] as Row);
    while (i < rows.length && rows[i]?.kind === "added") added.push(rows[i++] as Row);
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      pairs.push([removed[k], added[k]]);
    }
  }
  return pairs;
}

const rowTone: Record<Kind, string> = {
  context: "",
  removed: "bg-red-50 dark:bg-red-950/50",
  added: "bg-emerald-50 dark:bg-emerald-950/50",
};
const sign: Record<Kind, string> = { context: " ", removed: "-", added: "+" };
const numberClass =
  "w-10 select-none px-1 text-right align-top text-zinc-400 tabular-nums dark:text-zinc-500";
const codeClass = "whitespace-pre-wrap break-all px-2 align-top";

function HunkHeader({ hunk, colSpan }: { hunk: DiffHunk; colSpan: number }) {
  return (
    <tr className="bg-sky-50 text-sky-800 dark:bg-sky-950/60 dark:text-sky-200">
      <td colSpan={colSpan} className="px-2 py-0.5">
        @@ -{hunk.old_start},{hunk.old_lines} +{hunk.new_start},{hunk.new_lines} @@
      </td>
    </tr>
  );
}

function UnifiedTable({ hunks, rows }: { hunks: readonly DiffHunk[]; rows: Row[][] }) {
  return (
    <table className="w-full border-collapse font-mono text-xs">
      <tbody>
        {hunks.map((hunk, h) => [
          <HunkHeader key={`h${hunk.old_start}:${hunk.new_start}`} hunk={hunk} colSpan={4} />,
          ...(rows[h] ?? []).map((row, r) => (
            <tr
              // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines never reorder
              key={`${h}:${r}`}
              data-change={row.kind}
              className={rowTone[row.kind]}
            >
              <td className={numberClass}>{row.old ?? ""}</td>
              <td className={numberClass}>{row.new ?? ""}</td>
              <td aria-hidden="true" className="w-3 select-none text-zinc-500">
                {sign[row.kind]}
              </td>
              <td className={codeClass}>{row.code}</td>
            </tr>
          )),
        ])}
      </tbody>
    </table>
  );
}

function SplitTable({ hunks, rows }: { hunks: readonly DiffHunk[]; rows: Row[][] }) {
  const side = (row: Row | undefined, which: "old" | "new") =>
    row === undefined ? (
      <>
        <td className={`${numberClass} bg-zinc-100 dark:bg-zinc-900`} />
        <td className="bg-zinc-100 dark:bg-zinc-900" />
      </>
    ) : (
      <>
        <td className={`${numberClass} ${rowTone[row.kind]}`}>{row[which] ?? ""}</td>
        <td className={`${codeClass} ${rowTone[row.kind]} w-1/2`}>{row.code}</td>
      </>
    );
  return (
    <table className="w-full table-fixed border-collapse font-mono text-xs">
      {/* fixed layout: the number columns keep their width, the two code columns share the rest */}
      <colgroup>
        <col className="w-10" />
        <col />
        <col className="w-10" />
        <col />
      </colgroup>
      <tbody>
        {hunks.map((hunk, h) => [
          <HunkHeader key={`h${hunk.old_start}:${hunk.new_start}`} hunk={hunk} colSpan={4} />,
          ...pairRows(rows[h] ?? []).map(([left, right], r) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines never reorder
            <tr key={`${h}:${r}`} data-change={left?.kind ?? right?.kind}>
              {side(left, "old")}
              {side(right, "new")}
            </tr>
          )),
        ])}
      </tbody>
    </table>
  );
}

export interface DiffViewProps {
  diff: FileDiff;
  /** the figure's accessible name, e.g. "Proposed change to src/a.ts" */
  label: string;
}

export function DiffView({ diff, label }: DiffViewProps) {
  const [layout, setLayout] = useState<"unified" | "split">("unified");
  const language = languageOf(diff.path);
  const rows = useMemo(() => diff.hunks.map((h) => rowsOf(h, language)), [diff, language]);
  const created = diff.change === "create";
  return (
    <figure
      aria-label={label}
      className="mt-2 overflow-hidden rounded-md border border-zinc-200 dark:border-zinc-800"
    >
      <figcaption className="flex flex-wrap items-center gap-2 border-b border-zinc-200 bg-zinc-50 px-2 py-1 text-xs dark:border-zinc-800 dark:bg-zinc-900">
        <code className="break-all font-mono font-semibold">{diff.path}</code>
        {created && <span className="text-emerald-700 dark:text-emerald-300">new file</span>}
        <span className="text-emerald-700 dark:text-emerald-300">+{diff.added}</span>
        <span className="text-red-700 dark:text-red-300">−{diff.removed}</span>
        {!created && diff.hunks.length > 0 && (
          <ToggleGroup.Root
            type="single"
            value={layout}
            onValueChange={(value) => {
              if (value === "unified" || value === "split") setLayout(value);
            }}
            aria-label="Diff layout"
            className="ml-auto hidden gap-1 lg:flex"
          >
            {(["unified", "split"] as const).map((value) => (
              <ToggleGroup.Item
                key={value}
                value={value}
                className="rounded px-1.5 py-0.5 text-zinc-600 hover:bg-zinc-200 data-[state=on]:bg-zinc-200 data-[state=on]:font-semibold dark:text-zinc-300 dark:hover:bg-zinc-800 dark:data-[state=on]:bg-zinc-800"
              >
                {value === "unified" ? "Unified" : "Side by side"}
              </ToggleGroup.Item>
            ))}
          </ToggleGroup.Root>
        )}
      </figcaption>
      <div className="hljs max-h-[32rem] overflow-auto bg-white dark:bg-zinc-950">
        {diff.hunks.length === 0 ? (
          <p className="px-2 py-1 text-xs text-zinc-500">No lines change.</p>
        ) : layout === "split" ? (
          <>
            <div className="hidden lg:block">
              <SplitTable hunks={diff.hunks} rows={rows} />
            </div>
            <div className="lg:hidden">
              <UnifiedTable hunks={diff.hunks} rows={rows} />
            </div>
          </>
        ) : (
          <UnifiedTable hunks={diff.hunks} rows={rows} />
        )}
      </div>
      {diff.truncated === true && (
        <p className="border-t border-zinc-200 px-2 py-1 text-xs text-zinc-500 dark:border-zinc-800">
          The change is longer than shown here; the raw arguments hold all of it.
        </p>
      )}
    </figure>
  );
}
