import { readFile } from "node:fs/promises";
import path from "node:path";

// Shared by the four codebase tools: reading the lines a result shows, and keeping the text for
// the model within a budget, saying how much was left out.

/** Characters of tool output the model gets at most (the rest is summarised in a note). */
export const DEFAULT_CODEBASE_OUTPUT_CHARS = 12_000;
/** A shown source line is cut to this many characters. */
const LINE_MAX = 200;

export function clipLine(line: string): string {
  const trimmed = line.replace(/\s+$/, "");
  return trimmed.length > LINE_MAX ? `${trimmed.slice(0, LINE_MAX - 1)}…` : trimmed;
}

/** Reads files' lines once per tool call. A file gone since indexing reads as no lines. */
export class LineReader {
  private readonly cache = new Map<string, Promise<string[]>>();
  constructor(private readonly root: string) {}

  lines(rel: string): Promise<string[]> {
    let lines = this.cache.get(rel);
    if (lines === undefined) {
      lines = readFile(path.join(this.root, rel), "utf8").then(
        (text) => text.split(/\r?\n/),
        () => [],
      );
      this.cache.set(rel, lines);
    }
    return lines;
  }
}

/** Collects output blocks until the budget is spent; then counts what did not fit. */
export class BoundedText {
  private readonly parts: string[] = [];
  private used = 0;
  private left = 0;
  constructor(private readonly budget: number) {}

  /** Adds a block if it fits; false once the budget is spent (the block is counted as left out). */
  add(block: string): boolean {
    if (this.left > 0 || this.used + block.length + 1 > this.budget) {
      this.left++;
      return false;
    }
    this.parts.push(block);
    this.used += block.length + 1;
    return true;
  }

  get omitted(): number {
    return this.left;
  }

  /** The text, with `note(omitted)` appended when blocks were left out. */
  text(note: (omitted: number) => string): string {
    const body = this.parts.join("\n");
    return this.left > 0 ? `${body}\n${note(this.left)}` : body;
  }
}
