import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readSourceImports } from "./import-graph.js";

// Each model provider's package (@ai-sdk/anthropic, @ai-sdk/openai, …) and Anthropic's own SDK are
// loaded when a model of their protocol is first built or a count first asks for it, never with
// the runtime: together they are most of the app's server bundle, and every start compiles what it
// loads (llm/model-factory.ts; docs/decisions/0085-a-first-start-loads-less.md). So in src/ they
// are only ever imported by an `import()` call or for types. @ai-sdk/provider (the interfaces and
// error classes every provider shares) is small and loaded as usual.

const SRC = fileURLToPath(new URL("../src", import.meta.url));
const LOADED_ON_USE = /^(@ai-sdk\/(?!provider$|provider-utils$)[^/]+|@anthropic-ai\/sdk)(\/|$)/;

describe("provider packages", () => {
  it("are imported in src/ only by import() or for types", () => {
    const sources = readSourceImports(SRC);
    const seen: string[] = [];
    const eager: string[] = [];
    for (const [file, imports] of sources.imports) {
      for (const { specifier, typeOnly, dynamic } of imports) {
        if (!LOADED_ON_USE.test(specifier)) continue;
        seen.push(specifier);
        if (!typeOnly && !dynamic) eager.push(`src/${file} imports ${specifier} with the module`);
      }
    }
    // the factory's own imports are seen: the rule is checked, not vacuously true
    expect(seen).toEqual(
      expect.arrayContaining(["@ai-sdk/anthropic", "@ai-sdk/openai", "@anthropic-ai/sdk"]),
    );
    expect(eager).toEqual([]);
  });
});
