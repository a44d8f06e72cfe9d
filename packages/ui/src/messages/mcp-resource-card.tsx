"use client";

import type { BodyOf } from "@arbor/core/browser";
import { Disclosure, preClass } from "./disclosure.js";

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The image the resource holds (core's mcpResourceImage: what the model receives as an image). */
function resourceImage(body: BodyOf<"mcp_resource">): string | undefined {
  if (!body.mime_type.startsWith("image/") || !BASE64.test(body.content)) return undefined;
  return `data:${body.mime_type};base64,${body.content}`;
}

export function McpResourceCard({ body }: { body: BodyOf<"mcp_resource"> }) {
  const image = resourceImage(body);
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
      {image !== undefined ? (
        <img
          src={image}
          alt={`${body.resource_uri} from ${body.server_name}`}
          className="max-h-96 max-w-full rounded border border-zinc-200 dark:border-zinc-700"
        />
      ) : (
        <pre className={preClass}>{body.content}</pre>
      )}
    </Disclosure>
  );
}
