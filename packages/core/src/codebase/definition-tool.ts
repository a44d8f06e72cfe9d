import { z } from "zod";
import { type AgentTool, defineTool } from "../tools/tool.js";
import type { CodebaseIndex } from "./codebase-index.js";
import { BoundedText, DEFAULT_CODEBASE_OUTPUT_CHARS } from "./output.js";
import type { DefinitionHit } from "./symbol-index.js";

// find_definition: where a symbol is defined, with its signature; for an unknown name, the
// nearest defined names.

export interface FindDefinitionDetails {
  symbol: string;
  definitions: DefinitionHit[];
  /** nearest defined names when there is no definition ("did you mean") */
  suggestions: string[];
  omitted: number;
}

const parameters = z.object({
  symbol: z
    .string()
    .min(1)
    .describe(
      "Name of a function, method, class, interface, type, enum or constant; 'Container.name' narrows to one container.",
    ),
});

export function createFindDefinitionTool(options: {
  index: CodebaseIndex;
  maxOutputChars?: number;
}): AgentTool<typeof parameters, FindDefinitionDetails> {
  return defineTool<typeof parameters, FindDefinitionDetails>({
    name: "find_definition",
    label: "Find definition",
    category: "read",
    description:
      "Find where a symbol (function, method, class, interface, type, enum, constant) is defined in the workspace: " +
      "file:line, kind, container and signature of each definition. For an unknown name, suggests the nearest defined names.",
    parameters,
    async execute(params) {
      const symbols = await options.index.ready();
      const definitions = symbols.definitions(params.symbol);
      if (definitions.length === 0) {
        const suggestions = symbols.similarNames(params.symbol);
        const used = symbols.references(params.symbol).length;
        const lines = [`No definition of "${params.symbol}" in the workspace index.`];
        if (suggestions.length > 0) lines.push(`Did you mean: ${suggestions.join(", ")}?`);
        if (used > 0) {
          lines.push(
            `"${params.symbol}" is used in ${used} file${used === 1 ? "" : "s"} (find_references lists them): it may be defined outside the workspace (a dependency, a built-in).`,
          );
        }
        return {
          content: [{ type: "text", text: lines.join("\n") }],
          details: { symbol: params.symbol, definitions: [], suggestions, omitted: 0 },
        };
      }
      const out = new BoundedText(options.maxOutputChars ?? DEFAULT_CODEBASE_OUTPUT_CHARS);
      const shown: DefinitionHit[] = [];
      for (const def of definitions) {
        const owner = def.container !== undefined ? ` in ${def.container}` : "";
        if (
          out.add(`${def.path}:${def.line} ${def.kind} ${def.name}${owner}\n    ${def.signature}`)
        ) {
          shown.push(def);
        }
      }
      const count = definitions.length;
      const header = `${count} definition${count === 1 ? "" : "s"} of "${params.symbol}":`;
      return {
        content: [
          {
            type: "text",
            text: `${header}\n${out.text((left) => `… ${left} more definition${left === 1 ? "" : "s"} not shown (output limit).`)}`,
          },
        ],
        details: {
          symbol: params.symbol,
          definitions: shown,
          suggestions: [],
          omitted: out.omitted,
        },
      };
    },
  });
}
