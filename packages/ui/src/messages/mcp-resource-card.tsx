"use client";

import type { BodyOf } from "@arbor/core";
import { Disclosure, preClass } from "./disclosure.js";

export function McpResourceCard({ body }: { body: BodyOf<"mcp_resource"> }) {
  return (
    <Disclosure
      label={`Resource ${body.resource_uri}`}
      summary={
        <span className="flex min-w-0 flex-wrap items-baseline gap-2">
          <span className="text-xs text-zinc-500 dark:text-zinc-400">{body.server_name}</span>
          <code className="truncate font-mono">{body.resource_uri}</code>
          <span className="text-xs text-zinc-500 dark:text-zinc-400">{body.mime_type}</span>
        </span>
      }
    >
      {body.mime_type.startsWith("image/") ? (
        <img
          src={`data:${body.mime_type};base64,${body.content}`}
          alt={`${body.resource_uri} from ${body.server_name}`}
          className="max-h-96 max-w-full rounded border border-zinc-200 dark:border-zinc-700"
        />
      ) : (
        <pre className={preClass}>{body.content}</pre>
      )}
    </Disclosure>
  );
}
