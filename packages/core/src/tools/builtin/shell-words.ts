// A small reader of bash command lines, for the deny list only. It is not a shell: it splits a
// command line into the simple commands that would run, with quotes and escapes removed, and
// keeps what substitutions ($(…), `…`, <(…), >(…)) contain as nested scripts, so a check can
// look at `rm -rf "/"` as `rm -rf /` and at `sh -c "$(curl x)"` as a shell fed by a download.
// Heredoc bodies are read as commands (feeding one to a shell runs it). Linear in the input.

/** A word after quote removal. */
export interface Word {
  /** the text with quotes and escapes removed; substitutions kept as written */
  text: string;
  /** scripts run by command or process substitutions inside the word */
  subs: Script[];
  /** the whole word is a process substitution, <(…) or >(…) */
  processSubstitution: boolean;
}

export interface Redirect {
  /** `>`, `>>`, `<`, `<<`, `&>`, … */
  op: string;
  target: Word | undefined;
}

export interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
}

/** Commands joined by `|`: each stage's stdin is the previous stage's output. */
export type Pipeline = SimpleCommand[];

/** Pipelines in the order they run (`;`, `&&`, `||`, `&` and newlines all separate them). */
export interface Script {
  source: string;
  pipelines: Pipeline[];
}

/** Nested scripts deeper than this are not read (they are still refused by their outer text). */
const MAX_DEPTH = 8;

export function parseScript(source: string, depth = 0): Script {
  return new Reader(source, depth).read();
}

class Reader {
  private i = 0;
  private readonly pipelines: Pipeline[] = [];
  private stages: SimpleCommand[] = [];
  private command: SimpleCommand = { words: [], redirects: [] };
  private text = "";
  private started = false;
  private subs: Script[] = [];
  private processSubstitution = false;
  /** a redirect operator waiting for its target word */
  private pendingRedirect: Redirect | undefined;

  constructor(
    private readonly src: string,
    private readonly depth: number,
  ) {}

  read(): Script {
    const { src } = this;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      const next = src[this.i + 1];
      if (c === " " || c === "\t" || c === "\r") {
        this.endWord();
        this.i++;
      } else if (c === "\n") {
        this.endPipeline();
        this.i++;
      } else if (c === "\\") {
        if (next === "\n") this.i += 2;
        else {
          this.append(next ?? "");
          this.i += 2;
        }
      } else if (c === "'") {
        const end = src.indexOf("'", this.i + 1);
        const stop = end === -1 ? src.length : end;
        this.append(src.slice(this.i + 1, stop));
        this.i = stop + 1;
      } else if (c === '"') {
        this.readDoubleQuoted();
      } else if (c === "$" && next === "'") {
        this.readAnsiC();
      } else if (c === "$" && next === "(") {
        this.readSubstitution(this.i + 1, "$");
      } else if (c === "$" && next === "{") {
        const end = this.matching(this.i + 1, "{", "}");
        this.append(src.slice(this.i, end + 1));
        this.i = end + 1;
      } else if (c === "`") {
        this.readBackticks();
      } else if ((c === "<" || c === ">") && next === "(" && !this.started) {
        this.processSubstitution = true;
        this.readSubstitution(this.i + 1, c);
      } else if (c === "#" && !this.started) {
        const end = src.indexOf("\n", this.i);
        this.i = end === -1 ? src.length : end;
      } else if (c === "|") {
        this.endWord();
        if (next === "|") {
          this.endPipeline();
          this.i += 2;
        } else {
          this.endStage();
          this.i += next === "&" ? 2 : 1;
        }
      } else if (c === "&") {
        if (next === ">") {
          this.readRedirect();
        } else {
          this.endPipeline();
          this.i += next === "&" ? 2 : 1;
        }
      } else if (c === ";" || c === "(" || c === ")") {
        this.endPipeline();
        this.i++;
      } else if (c === "<" || c === ">") {
        this.readRedirect();
      } else {
        this.append(c);
        this.i++;
      }
    }
    this.endPipeline();
    return { source: src, pipelines: this.pipelines };
  }

  private append(text: string): void {
    this.text += text;
    this.started = true;
  }

  private endWord(): void {
    if (!this.started) return;
    const word: Word = {
      text: this.text,
      subs: this.subs,
      processSubstitution: this.processSubstitution,
    };
    if (this.pendingRedirect !== undefined) {
      this.pendingRedirect.target = word;
      this.pendingRedirect = undefined;
    } else {
      this.command.words.push(word);
    }
    this.text = "";
    this.started = false;
    this.subs = [];
    this.processSubstitution = false;
  }

  private endStage(): void {
    this.endWord();
    this.pendingRedirect = undefined;
    if (this.command.words.length > 0 || this.command.redirects.length > 0) {
      this.stages.push(this.command);
    }
    this.command = { words: [], redirects: [] };
  }

  private endPipeline(): void {
    this.endStage();
    if (this.stages.length > 0) this.pipelines.push(this.stages);
    this.stages = [];
  }

  private readRedirect(): void {
    // a word of digits right before the operator is a file descriptor, not an argument
    const fd = this.started && /^\d+$/.test(this.text) && this.subs.length === 0;
    if (fd) {
      this.text = "";
      this.started = false;
    } else {
      this.endWord();
    }
    const op = /^(?:&>>|&>|>>|>\||>&|<<<|<<-|<<|<>|<&|>|<)/.exec(
      this.src.slice(this.i, this.i + 3),
    );
    const text = op?.[0] ?? (this.src[this.i] as string);
    this.i += text.length;
    // `>&2`, `2>&1`: a descriptor, not a file
    if ((text === ">&" || text === "<&") && /^[\d-]/.test(this.src[this.i] ?? "")) {
      while (/[\d-]/.test(this.src[this.i] ?? "")) this.i++;
      return;
    }
    const redirect: Redirect = { op: text, target: undefined };
    this.command.redirects.push(redirect);
    this.pendingRedirect = redirect;
  }

  private readDoubleQuoted(): void {
    const { src } = this;
    this.i++;
    let out = "";
    while (this.i < src.length && src[this.i] !== '"') {
      const c = src[this.i] as string;
      const next = src[this.i + 1];
      if (c === "\\" && next !== undefined && '$`"\\\n'.includes(next)) {
        if (next !== "\n") out += next;
        this.i += 2;
      } else if (c === "$" && next === "(") {
        this.append(out);
        out = "";
        this.readSubstitution(this.i + 1, "$");
      } else if (c === "`") {
        this.append(out);
        out = "";
        this.readBackticks();
      } else {
        out += c;
        this.i++;
      }
    }
    this.append(out);
    this.i++;
  }

  private readAnsiC(): void {
    const { src } = this;
    this.i += 2;
    let out = "";
    while (this.i < src.length && src[this.i] !== "'") {
      const c = src[this.i] as string;
      if (c !== "\\") {
        out += c;
        this.i++;
        continue;
      }
      const rest = src.slice(this.i + 1, this.i + 4);
      const hex = /^x([0-9a-fA-F]{1,2})/.exec(rest);
      const octal = /^([0-7]{1,3})/.exec(rest);
      if (hex) {
        out += String.fromCharCode(Number.parseInt(hex[1] as string, 16));
        this.i += 1 + hex[0].length;
      } else if (octal) {
        out += String.fromCharCode(Number.parseInt(octal[1] as string, 8));
        this.i += 1 + octal[0].length;
      } else {
        const escaped = src[this.i + 1] ?? "";
        const named: Record<string, string> = { n: "\n", t: "\t", r: "\r", e: "\x1b", a: "\x07" };
        out += named[escaped] ?? escaped;
        this.i += 2;
      }
    }
    this.append(out);
    this.i++;
  }

  /** `$(…)`, `<(…)`, `>(…)` (and `$((…))`, kept as text): `open` is the index of the `(`. */
  private readSubstitution(open: number, sigil: string): void {
    const close = this.matching(open, "(", ")");
    const inner = this.src.slice(open + 1, close);
    this.append(`${sigil}(${inner})`);
    if (!inner.startsWith("(") && this.depth < MAX_DEPTH) {
      this.subs.push(parseScript(inner, this.depth + 1));
    }
    this.i = close + 1;
  }

  private readBackticks(): void {
    const { src } = this;
    let j = this.i + 1;
    let inner = "";
    while (j < src.length && src[j] !== "`") {
      if (src[j] === "\\" && j + 1 < src.length) {
        inner += src[j + 1];
        j += 2;
      } else {
        inner += src[j];
        j++;
      }
    }
    this.append(`\`${inner}\``);
    if (this.depth < MAX_DEPTH) this.subs.push(parseScript(inner, this.depth + 1));
    this.i = j + 1;
  }

  /** Index of the bracket closing the one at `open` (quotes respected); the end when unclosed. */
  private matching(open: number, left: string, right: string): number {
    const { src } = this;
    let depth = 0;
    let j = open;
    while (j < src.length) {
      const c = src[j];
      if (c === "\\") j += 2;
      else if (c === "'") {
        const end = src.indexOf("'", j + 1);
        j = end === -1 ? src.length : end + 1;
      } else if (c === '"') {
        j++;
        while (j < src.length && src[j] !== '"') j += src[j] === "\\" ? 2 : 1;
        j++;
      } else {
        if (c === left) depth++;
        else if (c === right) {
          depth--;
          if (depth === 0) return j;
        }
        j++;
      }
    }
    return src.length;
  }
}
