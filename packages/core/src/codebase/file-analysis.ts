import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import type * as TreeSitter from "@vscode/tree-sitter-wasm";
import type { AnalysedFile, Definition } from "./file-record.js";
import { SIGNATURE_MAX } from "./file-record.js";
import { type DefinitionKind, type LanguageId, languageSpec } from "./languages.js";
import { termFrequencies } from "./search-terms.js";

// Reads one file's definitions and identifier occurrences with tree-sitter (WebAssembly, no
// native build). Runs inside the indexing worker; nothing here touches the index itself.

type TreeSitterModule = typeof TreeSitter;

interface LoadedLanguage {
  parser: TreeSitter.Parser;
  definitions: TreeSitter.Query;
  identifiers: TreeSitter.Query;
}

const require = createRequire(import.meta.url);

/** Parsers and compiled queries, loaded once per language on first use. */
export class Grammars {
  private runtime: Promise<{ ts: TreeSitterModule; dir: string }> | undefined;
  private readonly loaded = new Map<string, Promise<LoadedLanguage>>();

  /** `load`: the require that finds the runtime (default: this module's own) */
  constructor(private readonly load: NodeJS.Require = require) {}

  private init(): Promise<{ ts: TreeSitterModule; dir: string }> {
    this.runtime ??= (async () => {
      const ts = this.load("@vscode/tree-sitter-wasm") as TreeSitterModule;
      const dir = path.dirname(this.load.resolve("@vscode/tree-sitter-wasm")) + path.sep;
      await ts.Parser.init({ locateFile: (file: string) => dir + file });
      return { ts, dir };
    })();
    return this.runtime;
  }

  /** undefined for languages the index searches as text only */
  async forLanguage(id: LanguageId): Promise<LoadedLanguage | undefined> {
    const spec = languageSpec(id);
    if (spec.grammar === undefined) return undefined;
    let loaded = this.loaded.get(id);
    if (loaded === undefined) {
      const grammar = spec.grammar;
      loaded = this.init().then(async ({ ts, dir }) => {
        const language = await ts.Language.load(dir + grammar);
        const parser = new ts.Parser();
        parser.setLanguage(language);
        const idTypes = (spec.identifiers ?? ["identifier"]).map((type) => `(${type})`).join(" ");
        return {
          parser,
          definitions: new ts.Query(language, spec.definitions ?? ""),
          identifiers: new ts.Query(language, `[${idTypes}] @id`),
        };
      });
      this.loaded.set(id, loaded);
    }
    return loaded;
  }
}

export function contentHash(content: Buffer | string): string {
  return createHash("sha1").update(content).digest("hex");
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}

function signatureOf(node: TreeSitter.Node, text: string): string {
  // `const X = …`: the declaration keyword belongs to the signature
  const parent = node.parent;
  const start =
    parent !== null && /declaration$/.test(parent.type) && parent.namedChildCount === 1
      ? parent.startIndex
      : node.startIndex;
  const body =
    node.childForFieldName("body") ??
    node.childForFieldName("value")?.childForFieldName("body") ??
    null;
  const end = body !== null && body.startIndex > start ? body.startIndex : node.endIndex;
  let raw = text.slice(start, end);
  if (body === null) {
    const newline = raw.indexOf("\n");
    if (newline !== -1) raw = raw.slice(0, newline);
  }
  const collapsed = raw.replace(/\s+/g, " ").trim();
  return collapsed.length > SIGNATURE_MAX ? `${collapsed.slice(0, SIGNATURE_MAX - 1)}…` : collapsed;
}

interface Found {
  name: string;
  /** a container the definition names itself (Go receivers, C++ `A::f`) */
  container?: string;
  kind: DefinitionKind | "scope";
  node: TreeSitter.Node;
}

const CONTAINER_KINDS = new Set(["class", "interface", "enum", "scope", "function", "method"]);

function definitionsOf(loaded: LoadedLanguage, root: TreeSitter.Node, text: string): Definition[] {
  const byNode = new Map<number, Found>();
  for (const match of loaded.definitions.matches(root)) {
    let name: string | undefined;
    let container: string | undefined;
    let def: { node: TreeSitter.Node; kind: Found["kind"] } | undefined;
    for (const capture of match.captures) {
      if (capture.name === "name") name = capture.node.text;
      else if (capture.name === "container") container = capture.node.text.replace(/[^\w$]/g, "");
      else if (capture.name === "scope") def = { node: capture.node, kind: "scope" };
      else if (capture.name.startsWith("def.")) {
        def = { node: capture.node, kind: capture.name.slice(4) as DefinitionKind };
      }
    }
    if (name === undefined || def === undefined) continue;
    const earlier = byNode.get(def.node.id);
    // `const f = () => …` matches as constant and as function: the function wins
    if (earlier !== undefined && !(earlier.kind === "constant" && def.kind !== "constant"))
      continue;
    byNode.set(def.node.id, {
      name,
      kind: def.kind,
      node: def.node,
      ...(container !== undefined ? { container } : {}),
    });
  }
  const found = [...byNode.values()];
  found.sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
  const defs: Definition[] = [];
  const open: Found[] = [];
  for (const item of found) {
    while (
      open.length > 0 &&
      (open[open.length - 1] as Found).node.endIndex <= item.node.startIndex
    ) {
      open.pop();
    }
    const parent = open[open.length - 1];
    if (item.kind !== "scope") {
      let kind = item.kind;
      // a function inside a class, interface or impl is a method (Python, Rust, C++)
      if (
        kind === "function" &&
        (item.container !== undefined ||
          (parent !== undefined &&
            (parent.kind === "class" || parent.kind === "interface" || parent.kind === "scope")))
      ) {
        kind = "method";
      }
      const def: Definition = {
        name: item.name,
        kind,
        signature: signatureOf(item.node, text),
        line: item.node.startPosition.row + 1,
        endLine: item.node.endPosition.row + 1,
      };
      const container = item.container ?? parent?.name;
      if (container !== undefined) def.container = container;
      defs.push(def);
    }
    if (CONTAINER_KINDS.has(item.kind)) open.push(item);
  }
  return defs;
}

function identifiersOf(loaded: LoadedLanguage, root: TreeSitter.Node): Map<string, number[]> {
  const lines = new Map<string, number[]>();
  for (const capture of loaded.identifiers.captures(root)) {
    const name = capture.node.text;
    const line = capture.node.startPosition.row + 1;
    const list = lines.get(name);
    if (list === undefined) lines.set(name, [line]);
    else if (list[list.length - 1] !== line) list.push(line);
  }
  return lines;
}

function packIdentifiers(
  lines: Map<string, number[]>,
): Pick<AnalysedFile, "idents" | "identStarts" | "identLines"> {
  const identStarts = new Uint32Array(lines.size + 1);
  let total = 0;
  let i = 0;
  for (const list of lines.values()) {
    identStarts[i++] = total;
    total += list.length;
  }
  identStarts[i] = total;
  const identLines = new Uint32Array(total);
  let at = 0;
  for (const list of lines.values()) {
    identLines.set(list, at);
    at += list.length;
  }
  return { idents: [...lines.keys()].join("\n"), identStarts, identLines };
}

export interface AnalyseInput {
  path: string;
  size: number;
  mtimeMs: number;
  language: LanguageId;
  content: string;
  hash: string;
}

/**
 * Files larger than this (256 KiB) are not parsed: bundles, vendored builds and generated parsers,
 * half the bytes of a tree such as next/dist in a few dozen files. They are still searched, and
 * every word's lines are kept so find_references finds uses in them (comments and strings
 * included, as text); only their definitions are not indexed.
 */
export const PARSE_MAX_BYTES = 256 * 1024;

const WORD = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** Every word of a text with the 1-based lines it occurs on (for files read as text). */
function wordLines(text: string): Map<string, number[]> {
  const lines = new Map<string, number[]>();
  let line = 1;
  let newline = text.indexOf("\n");
  for (const match of text.matchAll(WORD)) {
    while (newline !== -1 && newline < match.index) {
      line++;
      newline = text.indexOf("\n", newline + 1);
    }
    const list = lines.get(match[0]);
    if (list === undefined) lines.set(match[0], [line]);
    else if (list[list.length - 1] !== line) list.push(line);
  }
  return lines;
}

/** The file's record: definitions and identifiers for parsed languages, terms for all. */
export async function analyseFile(grammars: Grammars, input: AnalyseInput): Promise<AnalysedFile> {
  const { content } = input;
  const terms = termFrequencies(content);
  let termCount = 0;
  for (const count of terms.values()) termCount += count;
  let defs: Definition[] = [];
  let idents = new Map<string, number[]>();
  const loaded = await grammars.forLanguage(input.language);
  if (loaded !== undefined && input.size > PARSE_MAX_BYTES) {
    idents = wordLines(content);
  } else if (loaded !== undefined) {
    const tree = loaded.parser.parse(content);
    if (tree !== null) {
      try {
        defs = definitionsOf(loaded, tree.rootNode, content);
        idents = identifiersOf(loaded, tree.rootNode);
      } finally {
        tree.delete();
      }
    }
  }
  return {
    path: input.path,
    size: input.size,
    mtimeMs: input.mtimeMs,
    hash: input.hash,
    language: input.language,
    lines: countLines(content),
    defs,
    ...packIdentifiers(idents),
    terms: [...terms.keys()].join("\n"),
    termCounts: Uint32Array.from(terms.values()),
    termCount,
  };
}
