import { z } from "zod";
import { type AgentTool, defineTool } from "../tools/tool.js";
import type { CodebaseIndex } from "./codebase-index.js";
import { BoundedText, clipLine, DEFAULT_CODEBASE_OUTPUT_CHARS, LineReader } from "./output.js";

// find_references: every place an identifier occurs (in code, not in comments or strings),
// grouped by file, with the lines around it and the total count.

export interface ReferenceLine {
  line: number;
  text: string;
  /** this occurrence is a definition of the symbol */
  definition?: boolean;
}

export interface ReferenceGroup {
  path: string;
  count: number;
  /** the occurrences shown (with their line's text) */
  lines: ReferenceLine[];
}

export interface FindReferencesDetails {
  symbol: string;
  /** occurrences (lines) in all files */
  total: number;
  files: number;
  groups: ReferenceGroup[];
  /** occurrences found but not shown (output limit) */
  omitted: number;
}

/** lines shown above and below each occurrence */
const CONTEXT = 1;
/** occurrences shown with their surrounding lines; the rest by line number only */
const WITH_CONTEXT_MAX = 40;

const parameters = z.object({
  symbol: z
    .string()
    .min(1)
    .describe("The exact identifier to find the uses of (case-sensitive), e.g. 'parseConfig'."),
});

export function createFindReferencesTool(options: {
  index: CodebaseIndex;
  maxOutputChars?: number;
}): AgentTool<typeof parameters, FindReferencesDetails> {
  return defineTool<typeof parameters, FindReferencesDetails>({
    name: "find_references",
    label: "Find references",
    category: "read",
    description:
      "Find every use of a symbol in the workspace's code (identifiers, not comments or strings), grouped by file, " +
      "each with its surrounding lines, and the total count. Definitions are marked.",
    parameters,
    async execute(params) {
      const symbols = await options.index.ready();
      const found = symbols.references(params.symbol);
      const total = found.reduce((sum, file) => sum + file.lines.length, 0);
      if (total === 0) {
        const suggestions = symbols.similarNames(params.symbol);
        const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(", ")}?` : "";
        return {
          content: [{ type: "text", text: `No references to "${params.symbol}".${hint}` }],
          details: { symbol: params.symbol, total: 0, files: 0, groups: [], omitted: 0 },
        };
      }
      const reader = new LineReader(options.index.root);
      const out = new BoundedText(options.maxOutputChars ?? DEFAULT_CODEBASE_OUTPUT_CHARS);
      const groups: ReferenceGroup[] = [];
      let withContext = 0;
      let omitted = 0;
      for (const file of found) {
        const lines = await reader.lines(file.path);
        const definitions = new Set(file.definitionLines);
        const group: ReferenceGroup = { path: file.path, count: file.lines.length, lines: [] };
        const blocks: string[] = [`${file.path} (${file.lines.length})`];
        const brief: number[] = [];
        let shownTo = 0;
        for (const line of file.lines) {
          const entry: ReferenceLine = { line, text: clipLine((lines[line - 1] ?? "").trim()) };
          if (definitions.has(line)) entry.definition = true;
          if (withContext < WITH_CONTEXT_MAX) {
            withContext++;
            // windows of neighbouring uses join rather than repeat lines
            const from = Math.max(1, line - CONTEXT, shownTo + 1);
            const to = Math.min(lines.length, line + CONTEXT);
            if (from > shownTo + 1 && shownTo > 0) blocks.push("        …");
            const block: string[] = [];
            for (let n = from; n <= to; n++) {
              const marker = file.lines.includes(n) ? (definitions.has(n) ? "=" : ">") : " ";
              block.push(`  ${marker}${String(n).padStart(5)}  ${clipLine(lines[n - 1] ?? "")}`);
            }
            if (block.length > 0) blocks.push(block.join("\n"));
            shownTo = Math.max(shownTo, to);
          } else {
            brief.push(line);
          }
          group.lines.push(entry);
        }
        if (brief.length > 0) blocks.push(`  also on lines ${brief.join(", ")}`);
        if (out.add(blocks.join("\n"))) groups.push(group);
        else omitted += file.lines.length;
      }
      const header = `${total} reference${total === 1 ? "" : "s"} to "${params.symbol}" in ${found.length} file${
        found.length === 1 ? "" : "s"
      } ("=" marks a definition):`;
      const text = out.text(
        (left) =>
          `… ${left} more file${left === 1 ? "" : "s"} (${omitted} reference${omitted === 1 ? "" : "s"}) not shown (output limit).`,
      );
      return {
        content: [{ type: "text", text: `${header}\n${text}` }],
        details: { symbol: params.symbol, total, files: found.length, groups, omitted },
      };
    },
  });
}
