"use client";

import type { BodyOf } from "@arbor/core/browser";
import { Disclosure, preClass } from "./disclosure.js";

/** "src/a.ts:2-4", "src/a.ts:7" or "src/a.ts" */
export function fileReferenceLabel(body: Pick<BodyOf<"file_reference">, "path" | "range">): string {
  if (!body.range) return body.path;
  const { start_line, end_line } = body.range;
  return start_line === end_line
    ? `${body.path}:${start_line}`
    : `${body.path}:${start_line}-${end_line}`;
}

export function FileReferenceCard({ body }: { body: BodyOf<"file_reference"> }) {
  const label = fileReferenceLabel(body);
  const { resolved } = body;
  if (!resolved) {
    return (
      <p className="text-sm">
        <span aria-hidden="true">📄 </span>
        <code className="font-mono">{label}</code>
        <span className="ml-2 text-xs text-zinc-500 dark:text-zinc-400">not read yet</span>
      </p>
    );
  }
  return (
    <Disclosure
      label={`File ${label}`}
      summary={
        <span className="flex flex-wrap items-baseline gap-2">
          <code className="font-mono">{label}</code>
          <span className="text-xs text-zinc-500 dark:text-zinc-400">
            lines {resolved.start_line}–{resolved.end_line} of {resolved.total_lines}
            {resolved.truncated ? " · truncated" : ""}
          </span>
        </span>
      }
    >
      <pre className={preClass}>{resolved.content}</pre>
    </Disclosure>
  );
}
