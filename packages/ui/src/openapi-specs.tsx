"use client";

import type { OpenApiSpecView } from "@arbor/core/browser";
import { badgeClass } from "./styles.js";

// The OpenAPI specs of .arbor/openapi.json, as the settings show them: a status dot and word,
// the title and where calls go, the credential's variable (set or not; never its value), the
// error of a failed spec, the operations left out, and the tools by the names the model sees.

const statusStyle: Record<OpenApiSpecView["status"], { dot: string; label: string }> = {
  loaded: { dot: "bg-emerald-500", label: "loaded" },
  loading: { dot: "bg-amber-400", label: "loading" },
  failed: { dot: "bg-red-500", label: "failed" },
  untrusted: { dot: "bg-amber-600", label: "waits for trust" },
};

export interface OpenApiSpecListProps {
  specs: readonly OpenApiSpecView[];
}

export function OpenApiSpecList({ specs }: OpenApiSpecListProps) {
  if (specs.length === 0) {
    return (
      <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="openapi-specs-empty">
        No OpenAPI specs. List them in .arbor/openapi.json in the workspace (see docs/openapi.md).
      </p>
    );
  }
  return (
    <ul className="flex flex-col gap-2" aria-label="OpenAPI specs">
      {specs.map((spec) => {
        const style = statusStyle[spec.status];
        return (
          <li
            key={spec.index}
            data-testid="openapi-spec"
            data-status={spec.status}
            className="rounded-md border border-zinc-200 p-2 dark:border-zinc-700"
          >
            <div className="flex items-center gap-2">
              <span
                aria-hidden="true"
                className={`inline-block h-2.5 w-2.5 shrink-0 rounded-full ${style.dot}`}
              />
              <span className="min-w-0 flex-1 truncate text-sm font-medium" title={spec.spec}>
                {spec.title ?? (spec.spec || `entry ${spec.index}`)}
              </span>
              {spec.auth !== undefined && (
                <span
                  data-testid="openapi-auth"
                  className={`${badgeClass} ${
                    spec.auth.set
                      ? "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300"
                      : "bg-red-50 text-red-700 dark:bg-red-950 dark:text-red-300"
                  }`}
                  title={`${spec.auth.type} credential from the environment variable ${spec.auth.env}`}
                >
                  {spec.auth.env} {spec.auth.set ? "set" : "not set"}
                </span>
              )}
              <span
                className="text-xs text-zinc-600 dark:text-zinc-400"
                data-testid="openapi-status"
              >
                {style.label}
              </span>
            </div>
            <p className="mt-0.5 truncate text-xs text-zinc-600 dark:text-zinc-400">
              {spec.spec}
              {spec.base_url !== undefined ? ` → ${spec.base_url}` : ""}
            </p>
            {spec.error !== undefined && (
              <p
                data-testid="openapi-error"
                className="mt-1 text-xs break-words text-red-700 dark:text-red-400"
              >
                {spec.error}
              </p>
            )}
            {spec.warnings.length > 0 && (
              <details className="mt-1 text-xs">
                <summary className="cursor-pointer text-amber-700 dark:text-amber-400">
                  {spec.warnings.length} warning{spec.warnings.length === 1 ? "" : "s"}
                </summary>
                <ul className="mt-1 flex flex-col gap-0.5">
                  {spec.warnings.map((warning) => (
                    <li key={warning}>{warning}</li>
                  ))}
                </ul>
              </details>
            )}
            {spec.tools.length > 0 && (
              <details className="mt-1 text-xs">
                <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
                  {spec.tools.length} tool{spec.tools.length === 1 ? "" : "s"}
                </summary>
                <ul className="mt-1 flex flex-col gap-0.5">
                  {spec.tools.map((tool) => (
                    <li key={tool.name} title={tool.description}>
                      <code className="font-mono">{tool.name}</code>
                      <span className="text-zinc-600 dark:text-zinc-400">
                        {" "}
                        — {tool.method} {tool.path}
                      </span>
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </li>
        );
      })}
    </ul>
  );
}
