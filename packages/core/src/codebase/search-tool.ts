import { z } from "zod";
import { type AgentTool, defineTool } from "../tools/tool.js";
import type { CodebaseIndex } from "./codebase-index.js";
import type { DefinitionKind } from "./languages.js";
import { BoundedText, clipLine, DEFAULT_CODEBASE_OUTPUT_CHARS, LineReader } from "./output.js";
import { identifierTerms, queryTerms } from "./search-terms.js";
import type { RankedFile } from "./symbol-index.js";

// codebase_search: ranked places in the code for a query — BM25 over identifier parts and text,
// definitions whose names hold the query's words first.

export interface SearchHit {
  path: string;
  line: number;
  snippet: string;
  score: number;
  /** set when the line defines a symbol matching the query */
  kind?: DefinitionKind;
  name?: string;
}

export interface CodebaseSearchDetails {
  query: string;
  results: SearchHit[];
  /** results found but not returned (max_results or the output budget) */
  omitted: number;
}

export const DEFAULT_MAX_RESULTS = 20;
const LINES_PER_FILE = 3;
/** the most a matching line scores, as a share of its file's BM25 (0.5 + 0.45, see below) */
const LINE_SHARE_MAX = 0.95;

const parameters = z.object({
  query: z
    .string()
    .min(1)
    .describe("What to look for: identifiers, words or a phrase (e.g. 'parse user record')."),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(200)
    .optional()
    .describe(`Results returned at most (default ${DEFAULT_MAX_RESULTS}).`),
});

function termsOfLine(line: string): Set<string> {
  const terms = new Set<string>();
  for (const word of line.match(/[A-Za-z_$][A-Za-z0-9_$]*/g) ?? []) {
    for (const term of cachedIdentifierTerms(word)) terms.add(term);
  }
  return terms;
}

/** Words repeat across lines and calls: their terms are kept (bounded, cleared when full). */
const termCache = new Map<string, string[]>();
const TERM_CACHE_MAX = 50_000;

function cachedIdentifierTerms(word: string): string[] {
  let terms = termCache.get(word);
  if (terms === undefined) {
    if (termCache.size >= TERM_CACHE_MAX) termCache.clear();
    terms = identifierTerms(word);
    termCache.set(word, terms);
  }
  return terms;
}

/**
 * A line can hold a query term only if its lower-cased text contains the term (terms are
 * lower-cased parts of its words): one regular-expression test skips the others before any
 * tokenizing.
 */
function mayHoldTerm(terms: readonly string[]): RegExp {
  return new RegExp(terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "i");
}

/** The ranked hits for a query (exported for the benchmark). */
export async function searchCodebase(
  index: CodebaseIndex,
  query: string,
  maxResults: number,
): Promise<{ hits: SearchHit[]; more: number }> {
  const symbols = await index.ready();
  const terms = queryTerms(query);
  const files = symbols.rank(query, maxResults + 5);
  const reader = new LineReader(index.root);
  // definitions come from the index; only lines need the file itself
  const own = files.map((file) =>
    file.definitions.slice(0, LINES_PER_FILE).map(
      ({ def, boost }): SearchHit => ({
        path: file.path,
        line: def.line,
        snippet: def.signature,
        score: file.base + boost,
        kind: def.kind,
        name: def.name,
      }),
    ),
  );
  // A line scores at most LINE_SHARE_MAX of its file's BM25: a file whose best line cannot reach
  // the max_results-th score held is not read. The bar only rises, so the files worth reading
  // are at most those passing it with definitions alone; they are read together (the reads
  // overlap in the thread pool), then weighed in rank order.
  const bar = (): number => {
    if (hits.length < maxResults) return Number.NEGATIVE_INFINITY;
    return [...hits].sort((a, b) => b.score - a.score)[maxResults - 1]?.score ?? 0;
  };
  const hits: SearchHit[] = own.flat();
  const worthReading = (n: number, atLeast: number): boolean =>
    (own[n] as SearchHit[]).length < LINES_PER_FILE &&
    // (the margin covers floating-point rounding of the line score)
    (files[n] as RankedFile).base * LINE_SHARE_MAX * (1 + 1e-9) >= atLeast;
  const firstBar = bar();
  const contents = await Promise.all(
    files.map((file, n) => (worthReading(n, firstBar) ? reader.lines(file.path) : undefined)),
  );
  const candidate = mayHoldTerm(terms);
  let skipped = 0;
  for (const [n, file] of files.entries()) {
    const lines = contents[n];
    if (lines === undefined || !worthReading(n, bar())) {
      if ((own[n] as SearchHit[]).length < LINES_PER_FILE) skipped++;
      continue;
    }
    const taken = new Set((own[n] as SearchHit[]).map((hit) => hit.line));
    const scored: Array<{ line: number; matched: number }> = [];
    lines.forEach((text, i) => {
      if (taken.has(i + 1) || text.length > 2_000 || !candidate.test(text)) return;
      const lineTerms = termsOfLine(text);
      let matched = 0;
      for (const term of terms) if (lineTerms.has(term)) matched++;
      if (matched > 0) scored.push({ line: i + 1, matched });
    });
    scored.sort((a, b) => b.matched - a.matched || a.line - b.line);
    for (const { line, matched } of scored.slice(0, LINES_PER_FILE - taken.size)) {
      hits.push({
        path: file.path,
        line,
        snippet: clipLine((lines[line - 1] ?? "").trim()),
        // a line holding every query term counts nearly as much as its file; fewer, less
        score: file.base * (0.5 + (0.45 * matched) / Math.max(terms.length, 1)),
      });
    }
  }
  hits.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.line - b.line);
  // a file left unread holds at least one matching line: counted as one more result
  return {
    hits: hits.slice(0, maxResults),
    more: Math.max(0, hits.length - maxResults) + skipped,
  };
}

export function createCodebaseSearchTool(options: {
  index: CodebaseIndex;
  maxOutputChars?: number;
}): AgentTool<typeof parameters, CodebaseSearchDetails> {
  return defineTool<typeof parameters, CodebaseSearchDetails>({
    name: "codebase_search",
    label: "Search codebase",
    category: "read",
    description:
      "Search the workspace's code by meaning of names: ranked results (file:line and the line) for identifiers or words, " +
      "with definitions whose names match first. Matches identifier parts (getUserName matches 'user name'). " +
      "Paths are relative to the workspace. For every use of one exact symbol, use find_references.",
    parameters,
    async execute(params) {
      const max = params.max_results ?? DEFAULT_MAX_RESULTS;
      const { hits, more } = await searchCodebase(options.index, params.query, max);
      if (hits.length === 0) {
        return {
          content: [{ type: "text", text: `No results for "${params.query}".` }],
          details: { query: params.query, results: [], omitted: 0 },
        };
      }
      const out = new BoundedText(options.maxOutputChars ?? DEFAULT_CODEBASE_OUTPUT_CHARS);
      const shown: SearchHit[] = [];
      for (const hit of hits) {
        const label = hit.kind !== undefined ? ` (${hit.kind} ${hit.name})` : "";
        if (out.add(`${hit.path}:${hit.line}${label}\n    ${hit.snippet}`)) shown.push(hit);
      }
      const omitted = out.omitted + more;
      const text = out.text(
        (left) => `… ${left} more result${left === 1 ? "" : "s"} not shown (output limit).`,
      );
      const header = `${shown.length} result${shown.length === 1 ? "" : "s"} for "${params.query}", best first${
        more > 0 ? ` (${more} more beyond max_results=${max})` : ""
      }:`;
      return {
        content: [{ type: "text", text: `${header}\n${text}` }],
        details: { query: params.query, results: shown, omitted },
      };
    },
  });
}
