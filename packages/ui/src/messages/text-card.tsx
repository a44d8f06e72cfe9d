"use client";

import type { BodyOf, ContextMessage } from "@arbor/core";
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
  const text = streaming && streamingText !== undefined ? streamingText : body.text;
  if (message.role === "user") {
    return <LongText text={text} />;
  }
  return (
    <div aria-busy={streaming}>
      {/* the cursor is drawn inside the markdown's last block, so it follows the last word */}
      <Markdown text={text} cursor={streaming} />
    </div>
  );
}
