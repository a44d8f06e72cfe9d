import { common, createLowlight } from "lowlight";
import type { ReactNode } from "react";

// Syntax highlighting for code shown line by line (diffs, commands): highlight.js's common
// languages through lowlight, the same grammars rehype-highlight gives the Markdown, so the app's
// highlight.js theme colours both. A text is highlighted whole and then cut into lines, so a
// token that spans lines (a block comment, a template string) keeps its colour on each.

const lowlight = createLowlight(common);

/** The highlight.js language for a file name (by extension or name); undefined: plain text. */
export function languageOf(path: string): string | undefined {
  const name = path.split("/").at(-1) ?? path;
  if (name === "Dockerfile") return "dockerfile";
  if (name === "Makefile") return "makefile";
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const extension = name.slice(dot + 1).toLowerCase();
  const alias = ALIASES[extension] ?? extension;
  return lowlight.registered(alias) ? alias : undefined;
}

/** Extensions highlight.js does not know by themselves. */
const ALIASES: Record<string, string> = {
  mjs: "javascript",
  cjs: "javascript",
  mts: "typescript",
  cts: "typescript",
  jsx: "javascript",
  tsx: "typescript",
  yml: "yaml",
  htm: "xml",
  html: "xml",
  svg: "xml",
  toml: "ini",
};

interface HastText {
  type: "text";
  value: string;
}
interface HastElement {
  type: "element";
  properties?: { className?: unknown };
  children: HastNode[];
}
type HastNode = HastText | HastElement | { type: "comment" | "doctype" };

/**
 * Each of `lines` highlighted, in the context of the lines before it (one entry per line, in
 * order); the plain lines when the language is unknown or highlighting fails.
 */
export function highlightLines(
  lines: readonly string[],
  language: string | undefined,
): ReactNode[][] {
  const plain = (): ReactNode[][] => lines.map((line) => [line]);
  if (language === undefined || lines.length === 0) return plain();
  let tree: { children: HastNode[] };
  try {
    tree = lowlight.highlight(language, lines.join("\n")) as unknown as { children: HastNode[] };
  } catch {
    return plain();
  }
  const out: ReactNode[][] = [[]];
  const walk = (nodes: readonly HastNode[], classes: string): void => {
    for (const node of nodes) {
      if (node.type === "text") {
        node.value.split("\n").forEach((piece, index) => {
          if (index > 0) out.push([]);
          if (piece === "") return;
          const line = out[out.length - 1] as ReactNode[];
          line.push(
            classes === "" ? (
              piece
            ) : (
              <span key={line.length} className={classes}>
                {piece}
              </span>
            ),
          );
        });
      } else if (node.type === "element") {
        const own = node.properties?.className;
        const names = Array.isArray(own) ? own.join(" ") : typeof own === "string" ? own : "";
        walk(node.children, `${classes} ${names}`.trim());
      }
    }
  };
  walk(tree.children, "");
  return out.length === lines.length ? out : plain();
}
