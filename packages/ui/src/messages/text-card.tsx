"use client";

import type { BodyOf, ContextMessage } from "@arbor/core/browser";
import { AttachmentCard } from "./attachment-card.js";
import { LongText } from "./long-text.js";
import { Markdown } from "./markdown.js";

export interface TextCardProps {
  message: ContextMessage;
  body: BodyOf<"text">;
  /** the text received so far while the message streams; replaces the (still empty) body text */
  streamingText?: string | undefined;
}

export function TextCard({ message, body, streamingText }: TextCardProps) {
  const streaming = message.status === "streaming";
  // The streamed text stands in for the body until the stored text arrives: a card marked done
  // (the session rests) before the list was refetched would otherwise blank out for a moment.
  const text =
    streamingText !== undefined && (streaming || body.text === "") ? streamingText : body.text;
  if (message.role === "user") {
    const files = body.attachments ?? [];
    if (files.length === 0) return <LongText text={text} />;
    return (
      <div className="flex flex-col gap-2">
        <ul aria-label="Attached files" className="flex flex-col gap-2">
          {files.map((file, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the same file may be attached twice
            <li key={`${file.name}-${index}`}>
              <AttachmentCard body={{ message_type: "attachment", ...file }} />
            </li>
          ))}
        </ul>
        <LongText text={text} />
      </div>
    );
  }
  return (
    <div aria-busy={streaming}>
      {/* the cursor is drawn inside the markdown's last block, so it follows the last word */}
      <Markdown text={text} cursor={streaming} />
    </div>
  );
}
