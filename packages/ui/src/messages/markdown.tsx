"use client";

import { type ComponentProps, useRef } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { CopyButton } from "../copy-button.js";
import { rehypeStreamingCursor } from "./streaming-cursor.js";

// Markdown with GitHub extensions (tables, task lists, strikethrough) and highlight.js classes on
// fenced code. The app loads a highlight.js theme; these classes only lay the blocks out.
// Raw HTML in model output is not rendered (react-markdown's default), so text cannot inject markup.

const remarkPlugins = [remarkGfm];
const rehypePlugins = [rehypeHighlight];
// the cursor goes in last, after highlighting has split code into spans
const rehypePluginsWithCursor = [rehypeHighlight, rehypeStreamingCursor];

/** A fenced code block with a copy button in its corner. */
function CodeBlock({ node: _node, ...props }: ComponentProps<"pre"> & { node?: unknown }) {
  const ref = useRef<HTMLPreElement>(null);
  return (
    <div className="group/code relative">
      <pre ref={ref} {...props} />
      <CopyButton
        label="Copy code"
        getText={() => ref.current?.textContent ?? ""}
        className="absolute right-1 top-1 rounded border border-zinc-300 bg-white/90 px-2 py-0.5 text-xs text-zinc-700 opacity-100 hover:bg-zinc-100 focus-visible:opacity-100 sm:opacity-0 sm:group-hover/code:opacity-100 dark:border-zinc-700 dark:bg-zinc-900/90 dark:text-zinc-200"
      />
    </div>
  );
}

const components: Components = { pre: CodeBlock };

export interface MarkdownProps {
  text: string;
  className?: string;
  /** show a blinking cursor at the end of the last line, while the text is still streaming */
  cursor?: boolean;
}

export function Markdown({ text, className = "", cursor = false }: MarkdownProps) {
  return (
    <div
      className={`arbor-markdown max-w-none break-words text-sm leading-relaxed [&_a]:text-sky-700 [&_a]:underline dark:[&_a]:text-sky-300 [&_code]:font-mono [&_code]:text-[0.85em] [&_h1]:text-lg [&_h1]:font-semibold [&_h2]:font-semibold [&_li]:ml-5 [&_ol]:list-decimal [&_p]:my-2 [&_pre]:my-2 [&_pre]:overflow-x-auto [&_pre]:rounded-md [&_pre]:bg-zinc-100 [&_pre]:p-3 dark:[&_pre]:bg-zinc-900 [&_table]:my-2 [&_table]:border-collapse [&_td]:border [&_td]:border-zinc-300 [&_td]:px-2 dark:[&_td]:border-zinc-700 [&_th]:border [&_th]:border-zinc-300 [&_th]:px-2 dark:[&_th]:border-zinc-700 [&_ul]:list-disc ${className}`}
    >
      <ReactMarkdown
        remarkPlugins={remarkPlugins}
        components={components}
        rehypePlugins={cursor ? rehypePluginsWithCursor : rehypePlugins}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
