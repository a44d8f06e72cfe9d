"use client";

import type { BodyOf, ToolResultStatus } from "@arbor/core/browser";
import { unreachable } from "../state-label.js";
import { badgeClass } from "../styles.js";
import { codebaseResultView, type OpenFile } from "./codebase-result.js";
import { Disclosure, preClass } from "./disclosure.js";
import { McpServerTag } from "./mcp-origin.js";

function ResultBadge({ status }: { status: ToolResultStatus }) {
  switch (status) {
    case "success":
      return (
        <span
          className={`${badgeClass} bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200`}
        >
          OK
        </span>
      );
    case "error":
      return (
        <span className={`${badgeClass} bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200`}>
          Error
        </span>
      );
    case "denied":
      return (
        <span
          className={`${badgeClass} bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300`}
        >
          Denied
        </span>
      );
    case "skipped":
      return (
        <span
          className={`${badgeClass} bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300`}
        >
          Skipped
        </span>
      );
    case "cancelled":
      return (
        <span
          className={`${badgeClass} bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200`}
        >
          Cancelled
        </span>
      );
    default:
      return unreachable(status);
  }
}

/**
 * A tool's output, collapsed to one line until expanded. A failed call is open from the start,
 * marked in its header: its error is what the person needs to read (issue #27: errors were
 * folded away while the model's answer said "Done").
 */
export function ToolResultCard({
  body,
  onOpenFile,
}: {
  body: BodyOf<"tool_result">;
  /** codebase tools' `file:line` links open the file view at that line */
  onOpenFile?: OpenFile | undefined;
}) {
  const failed = body.status === "error";
  const structured =
    body.status === "success" ? codebaseResultView(body.tool_name, body.details, onOpenFile) : null;
  return (
    <div
      data-result-status={body.status}
      className={failed ? "text-red-800 dark:text-red-300" : ""}
    >
      <Disclosure
        label={`${body.tool_name} result${failed ? " (error)" : ""}`}
        defaultOpen={failed}
        summary={
          <span className="flex items-center gap-2">
            <code className="font-mono">{body.tool_name}</code>
            <McpServerTag toolName={body.tool_name} />
            <ResultBadge status={body.status} />
          </span>
        }
      >
        <div className="flex flex-col gap-2">
          {structured}
          {structured === null &&
            body.content.map((block, index) =>
              block.type === "text" ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: content blocks have no ids and never reorder
                <pre key={index} className={preClass}>
                  {block.text}
                </pre>
              ) : (
                <img
                  // biome-ignore lint/suspicious/noArrayIndexKey: content blocks have no ids and never reorder
                  key={index}
                  alt={`${body.tool_name} output ${index + 1}`}
                  src={`data:${block.mimeType};base64,${block.data}`}
                  className="max-h-96 max-w-full rounded"
                />
              ),
            )}
        </div>
      </Disclosure>
    </div>
  );
}
