"use client";

import type { BodyOf } from "@arbor/core/browser";
import { PaperclipIcon } from "../paperclip-icon.js";
import { Disclosure, preClass } from "./disclosure.js";

/** "12.3 KB" */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A file the user attached: an image shown as such, a text file collapsed to its name. */
export function AttachmentCard({ body }: { body: BodyOf<"attachment"> }) {
  const image = body.content.find((block) => block.type === "image");
  if (image?.type === "image") {
    return (
      <figure className="flex flex-col gap-1">
        <img
          src={`data:${image.mimeType};base64,${image.data}`}
          alt={`Attached: ${body.name}`}
          className="max-h-80 max-w-full self-start rounded border border-zinc-200 dark:border-zinc-700"
        />
        <figcaption className="text-xs text-zinc-500 dark:text-zinc-400">
          <span className="inline-flex items-center gap-1">
            <PaperclipIcon />
            {body.name} · {fileSize(body.size)}
          </span>
        </figcaption>
      </figure>
    );
  }
  const text = body.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n");
  return (
    <Disclosure
      label={`Attached file ${body.name}`}
      summary={
        <span className="flex min-w-0 flex-wrap items-baseline gap-2">
          <PaperclipIcon />
          <code className="truncate font-mono">{body.name}</code>
          <span className="text-xs text-zinc-500 dark:text-zinc-400">
            {body.mime_type} · {fileSize(body.size)}
          </span>
        </span>
      }
    >
      <pre className={preClass}>{text}</pre>
    </Disclosure>
  );
}
