import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import ts from "typescript";
import { REPO, readRepoFile, repoFiles } from "./repo-files.js";

// What the environment-variable check reads: the names the docs give, and the names the code
// holds (identifiers and string contents, comments left out).

/** The docs a user reads: the README and docs/ (decision records are history, docs/spec quotes). */
export function userDocs(): string[] {
  return [
    "README.md",
    ...repoFiles("docs", /\.md$/).filter(
      (file) => !file.startsWith("docs/decisions/") && !file.startsWith("docs/spec/"),
    ),
  ];
}

/**
 * The names of environment variables a text gives: UPPER_SNAKE words (`ARBOR_TOKEN`,
 * `OTEL_SERVICE_NAME`; `ARBOR_OIDC_*` as the prefix `ARBOR_OIDC_`), and single words assigned
 * in a command line (`HOST=0.0.0.0`, `PORT=3001`).
 */
export function namesIn(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(_\*)?/g)) {
    // `ARBOR_OIDC_*` is the prefix `ARBOR_OIDC_`
    names.add(m[1] === undefined ? m[0] : m[0].slice(0, -1));
  }
  for (const m of text.matchAll(/(?<![\w$])([A-Z][A-Z0-9]+)=(?=\S)/g)) {
    if (m[1] !== undefined) names.add(m[1]);
  }
  return [...names].sort();
}

/** Source files of what runs: apps/, packages/ and scripts/, tests and their helpers left out. */
export function codeFiles(): string[] {
  return ["apps", "packages", "scripts"]
    .flatMap((dir) => repoFiles(dir, /\.(?:ts|tsx|mts|js|mjs|cjs)$/))
    .filter(
      (file) =>
        !/\.(?:test|spec)\.tsx?$/.test(file) &&
        !/\.d\.ts$/.test(file) &&
        !/(?:^|\/)(?:test|tests|fixtures)\//.test(file),
    );
}

/**
 * The code's words, read lazily: `has(name)` is true when an identifier of the code is `name`, or
 * a string (or template part) of it holds `name` as a word; a name ending in `_` (a prefix the
 * docs wrote as `NAME_*`) matches the words it begins. Comments never count. Only the files whose
 * text mentions the name are parsed.
 */
export class CodeWords {
  readonly #texts: ReadonlyMap<string, string>;
  readonly #parsed = new Map<string, ReadonlySet<string>>();

  constructor(files: readonly string[]) {
    this.#texts = new Map(files.map((file) => [file, readFileSync(resolve(REPO, file), "utf8")]));
  }

  get fileCount(): number {
    return this.#texts.size;
  }

  has(name: string): boolean {
    for (const [file, text] of this.#texts) {
      if (!text.includes(name)) continue;
      const words = this.#wordsOf(file, text);
      if (name.endsWith("_") ? [...words].some((w) => w.startsWith(name)) : words.has(name)) {
        return true;
      }
    }
    return false;
  }

  #wordsOf(file: string, text: string): ReadonlySet<string> {
    const known = this.#parsed.get(file);
    if (known !== undefined) return known;
    const words = new Set<string>();
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, scriptKind(file));
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
        words.add(node.text);
      } else if (
        ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node) ||
        ts.isJsxText(node)
      ) {
        for (const word of node.text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) words.add(word);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    this.#parsed.set(file, words);
    return words;
  }
}

function scriptKind(file: string): ts.ScriptKind {
  if (file.endsWith(".tsx")) return ts.ScriptKind.TSX;
  if (file.endsWith(".ts") || file.endsWith(".mts")) return ts.ScriptKind.TS;
  return ts.ScriptKind.JS;
}

export { readRepoFile };
