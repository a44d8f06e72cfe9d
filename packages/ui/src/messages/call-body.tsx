"use client";

import type { BodyOf, FileDiff, ToolCallRequest } from "@arbor/core/browser";
import { unreachable } from "../state-label.js";
import { CallPreview } from "./call-preview.js";
import { DiffView } from "./diff-view.js";
import { Disclosure, preClass } from "./disclosure.js";
import { highlightLines } from "./highlight.js";
import { mcpToolOrigin } from "./mcp-origin.js";

// What a tool call does, as a person reviews it before approving (issue #27): an edit as the
// diff against the file on disk (then, once it ran, the diff it applied), a new file as its
// content, a command with its working directory, an MCP call with its server and tool, an
// OpenAPI call with its method and URL. The raw JSON arguments are one click away.

const MAX_VALUE_CHARS = 300;

function isFileDiff(value: unknown): value is FileDiff {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<FileDiff>;
  return (
    typeof v.path === "string" &&
    (v.change === "create" || v.change === "edit") &&
    typeof v.added === "number" &&
    typeof v.removed === "number" &&
    Array.isArray(v.hunks)
  );
}

/** The diff a successful edit_file / write_file result reports (its details.diff). */
export function appliedDiff(result: BodyOf<"tool_result"> | undefined): FileDiff | undefined {
  if (result?.status !== "success") return undefined;
  const details = result.details;
  if (typeof details !== "object" || details === null) return undefined;
  const diff = (details as { diff?: unknown }).diff;
  return isFileDiff(diff) ? diff : undefined;
}

function Command({ name, args }: { name: string; args: Record<string, unknown> }) {
  const command = typeof args.command === "string" ? args.command : undefined;
  if (command === undefined) return null;
  const cwd = typeof args.cwd === "string" && args.cwd !== "" ? args.cwd : undefined;
  const lines = highlightLines(command.split("\n"), "bash");
  return (
    <figure aria-label={`Command of ${name}`} className="mt-2">
      <figcaption className="mb-1 text-xs text-zinc-500 dark:text-zinc-400">
        in{" "}
        <code className="font-mono text-zinc-800 dark:text-zinc-200">
          {cwd ?? "the workspace root"}
        </code>
        {typeof args.timeout_ms === "number" && ` · times out after ${args.timeout_ms} ms`}
      </figcaption>
      <pre className={`hljs ${preClass}`}>
        {lines.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of one command never reorder
          <span key={i} className="block">
            <span aria-hidden="true" className="select-none text-zinc-400">
              {i === 0 ? "$ " : "  "}
            </span>
            {line}
          </span>
        ))}
      </pre>
    </figure>
  );
}

function shortValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/** The arguments as a list of names and values (long values cut; the raw JSON has them whole). */
function ArgumentList({ name, args }: { name: string; args: Record<string, unknown> }) {
  const entries = Object.entries(args);
  if (entries.length === 0) return null;
  return (
    <figure aria-label={`Arguments of ${name}`} className="mt-2">
      <dl className="grid grid-cols-[auto_1fr] gap-x-2 gap-y-0.5 text-xs">
        {entries.map(([key, value]) => (
          <div key={key} className="contents">
            <dt className="text-zinc-500 dark:text-zinc-400">{key}</dt>
            <dd className="whitespace-pre-wrap break-all font-mono">{shortValue(value)}</dd>
          </div>
        ))}
      </dl>
    </figure>
  );
}

function McpCall({ name }: { name: string }) {
  const origin = mcpToolOrigin(name);
  if (origin === undefined) return null;
  return (
    <dl
      aria-label={`MCP call ${name}`}
      className="mt-2 grid grid-cols-[auto_1fr] gap-x-2 gap-y-0.5 text-xs"
    >
      <dt className="text-zinc-500 dark:text-zinc-400">Server</dt>
      <dd className="font-mono">{origin.server}</dd>
      <dt className="text-zinc-500 dark:text-zinc-400">Tool</dt>
      <dd className="font-mono">{origin.tool}</dd>
    </dl>
  );
}

/** A file change: the applied diff once the call ran, the proposed one (or why it would fail) before. */
function FileChange({
  call,
  result,
}: {
  call: ToolCallRequest;
  result: BodyOf<"tool_result"> | undefined;
}) {
  const applied = appliedDiff(result);
  if (applied !== undefined) {
    return <DiffView diff={applied} label={`Applied change to ${applied.path}`} />;
  }
  const preview = call.preview?.kind === "file_change" ? call.preview : undefined;
  if (preview === undefined) return <ArgumentList name={call.name} args={call.arguments} />;
  if (preview.diff !== undefined) {
    return <DiffView diff={preview.diff} label={`Proposed change to ${preview.path}`} />;
  }
  return (
    <p
      role="note"
      aria-label={`Proposed change to ${preview.path}`}
      className="mt-2 whitespace-pre-wrap text-xs text-amber-800 dark:text-amber-200"
    >
      <code className="font-mono font-semibold">{preview.path}</code>: {preview.problem}
    </p>
  );
}

export function CallBody({
  call,
  result,
}: {
  call: ToolCallRequest;
  result: BodyOf<"tool_result"> | undefined;
}) {
  const preview = call.preview;
  let main: React.ReactNode;
  if (preview !== undefined) {
    switch (preview.kind) {
      case "http":
        main = <CallPreview name={call.name} preview={preview} />;
        break;
      case "file_change":
        main = <FileChange call={call} result={result} />;
        break;
      default:
        main = unreachable(preview);
    }
  } else if (call.name === "bash") {
    main = <Command name={call.name} args={call.arguments} />;
  } else if (mcpToolOrigin(call.name) !== undefined) {
    main = (
      <>
        <McpCall name={call.name} />
        <ArgumentList name={call.name} args={call.arguments} />
      </>
    );
  } else if (appliedDiff(result) !== undefined) {
    main = <FileChange call={call} result={result} />;
  } else {
    main = <ArgumentList name={call.name} args={call.arguments} />;
  }
  return (
    <>
      {main}
      <div className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
        <Disclosure label={`Raw arguments of ${call.name}`} summary="Raw arguments">
          <pre className={preClass}>{JSON.stringify(call.arguments, null, 2)}</pre>
        </Disclosure>
      </div>
    </>
  );
}
