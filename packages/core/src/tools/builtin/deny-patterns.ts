import path from "node:path";
import { parseScript, type Script, type SimpleCommand, type Word } from "./shell-words.js";

// REQ-094 / REQ-139: commands the bash tool refuses before anything is spawned.
//
// What this is: a guard rail against the obvious disasters, checked on the command as bash
// would see it. The command line is read into its simple commands first (shell-words.ts): quotes
// and escapes removed, `;`/`&&`/`||`/`|`/newline chains split, `sudo`/`env`/`nohup`… prefixes
// dropped, and the scripts inside `$(…)`, backticks, `<(…)`, `sh -c '…'` and `eval` read too.
// So `rm -rf "/"`, `cd / && rm -rf *`, `find / -delete`, `bash <(curl x)`, `sh -c "$(curl x)"`
// and `curl x | sh` are all refused, while `rm -rf /tmp/build` or `git push --force-with-lease`
// are not.
//
// What it is not: a sandbox. A determined command can always be written so that no check sees it
// (a script written to a file and run later, a variable holding `/`). Commands run only after the
// session's approval policy allows them, and, where bubblewrap works, in a sandbox.

/**
 * A user-configured pattern: a plain string, matched as a substring (case-insensitive, runs of
 * whitespace collapsed), or a regular expression with a label; either is tested against the
 * command as written and against each of its simple commands after normalisation.
 * Or a structural rule over the parsed commands.
 */
export type DenyPattern = string | { pattern: RegExp; label: string } | DenyRule;

export interface DenyRule {
  label: string;
  test(command: AnalysedCommand): boolean;
}

/** A simple command as it would run. */
export interface AnalysedCommand {
  /** the program's base name (`/bin/rm` → `rm`), after `sudo`, `env X=1`, …; "" for a bare redirect */
  name: string;
  /** the word naming the program (a `$(…)` there runs what it prints) */
  program: Word | undefined;
  /** the arguments after the name, quotes removed */
  args: Word[];
  redirects: SimpleCommand["redirects"];
  /** where `cd` in the same script left the shell, when it is known (`/`, `~`); else undefined */
  cwd: string | undefined;
  /** an earlier stage of the pipeline, or a `<` redirect, feeds it a download */
  stdinDownloaded: boolean;
  /** the command's words joined by single spaces */
  text: string;
}

const DOWNLOADERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "xh"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh"]);
/** interpreters whose options naming inline code are listed */
const INTERPRETERS: Readonly<Record<string, readonly string[]>> = {
  python: ["-c", "-m"],
  python2: ["-c", "-m"],
  python3: ["-c", "-m"],
  perl: ["-e", "-E"],
  ruby: ["-e"],
  node: ["-e", "-p", "--eval", "--print"],
  php: ["-r"],
};
/** prefixes that run the command after them, with their options that take a value */
const WRAPPERS: Readonly<Record<string, ReadonlySet<string>>> = {
  sudo: new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"]),
  doas: new Set(["-u", "-C"]),
  command: new Set(),
  builtin: new Set(),
  exec: new Set(["-a"]),
  nohup: new Set(),
  nice: new Set(["-n"]),
  ionice: new Set(["-c", "-n", "-p"]),
  time: new Set(["-f", "-o"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  env: new Set(["-u", "-C", "-S", "--unset", "--chdir"]),
  busybox: new Set(),
  setsid: new Set(),
  chronic: new Set(),
};
const RESERVED = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until"]);
const RESERVED_MORE = new Set(["!", "{", "}", "esac"]);
/** top-level directories whose recursive removal wrecks the machine */
const SYSTEM_DIRS = new Set(
  "bin boot dev etc home lib lib32 lib64 libx32 opt proc root sbin srv sys usr var".split(" "),
);

/** Whether a path names `/`, everything in it, a system directory, or the home directory. */
function isProtectedTarget(raw: string, cwd: string | undefined): boolean {
  let target = raw.replace(/^(?:\$HOME|\$\{HOME\})(?=\/|$)/, "~");
  if (target === "~" || target.startsWith("~/")) {
    target = path.posix.normalize(`/~home${target.slice(1)}`);
    return /^\/~home(?:\/(?:\*|\.\*)?)?$/.test(target);
  }
  if (!target.startsWith("/")) {
    if (cwd === undefined) return false;
    return isProtectedTarget(cwd === "~" ? `~/${target}` : path.posix.join(cwd, target), undefined);
  }
  const normal = path.posix.normalize(target).replace(/\/+$/, "") || "/";
  if (normal === "/" || normal === "/*" || normal === "/.*") return true;
  const top = /^\/([^/]+)\/?\*?$/.exec(normal);
  return top !== null && SYSTEM_DIRS.has(top[1] as string);
}

/** Arguments that are not options (after `--`, everything). */
function operands(args: readonly Word[]): string[] {
  const out: string[] = [];
  let optionsDone = false;
  for (const arg of args) {
    if (!optionsDone && arg.text === "--") optionsDone = true;
    else if (optionsDone || !arg.text.startsWith("-")) out.push(arg.text);
  }
  return out;
}

function hasShortFlag(args: readonly Word[], flag: string, long?: string): boolean {
  return args.some(
    (arg) =>
      (long !== undefined && arg.text === long) ||
      (/^-[a-zA-Z]+$/.test(arg.text) && arg.text.includes(flag)),
  );
}

/** Whether a word runs a download: a substitution whose script calls a downloader. */
function downloads(word: Word | undefined): boolean {
  return word?.subs.some(scriptDownloads) ?? false;
}

function scriptDownloads(script: Script): boolean {
  return script.pipelines.some((pipeline) =>
    pipeline.some((command) => {
      const resolved = unwrap(command.words);
      return (
        (resolved !== undefined && DOWNLOADERS.has(resolved.name)) || command.words.some(downloads)
      );
    }),
  );
}

/** For a shell or interpreter: the inline program (`-c '…'`), or undefined. */
function inlineProgram(command: AnalysedCommand): Word | undefined {
  const inlineFlags = SHELLS.has(command.name) ? ["-c"] : (INTERPRETERS[command.name] ?? []);
  for (let k = 0; k < command.args.length; k++) {
    const arg = command.args[k] as Word;
    const shortCluster = SHELLS.has(command.name) && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg.text);
    if (inlineFlags.includes(arg.text) || shortCluster) return command.args[k + 1];
  }
  return undefined;
}

/** A shell or interpreter that reads its program from stdin (no inline program, no script file). */
function readsProgramFromStdin(command: AnalysedCommand): boolean {
  const isShell = SHELLS.has(command.name);
  if (!isShell && INTERPRETERS[command.name] === undefined) return false;
  if (isShell && command.args.some((arg) => /^-[a-zA-Z]*s[a-zA-Z]*$/.test(arg.text))) return true;
  if (inlineProgram(command) !== undefined) return false;
  const files = operands(command.args);
  return files.length === 0 || files[0] === "-";
}

const isRunner = (name: string) =>
  SHELLS.has(name) || INTERPRETERS[name] !== undefined || name === "source" || name === ".";

/**
 * The default deny list. What it refuses, and why:
 * - `rm` of `/`, `/*`, a system directory (`/usr`, `/etc`, …) or the home directory, also
 *   through `cd / && rm -rf *`: wipes the machine or the user's files
 * - `find` over those with `-delete` or `-exec rm`: the same by another name
 * - `mkfs`, `dd` onto a disk device, a redirect onto a disk device: destroys file systems
 * - the classic fork bomb `:(){ :|:& };:`
 * - `shutdown`, `reboot`, `halt`, `poweroff`, `init 0/6`, `systemctl poweroff`: takes the machine down
 * - `chmod -R` / `chown -R` over those roots: breaks permissions system-wide
 * - `git push --force` / `-f` / `+ref` (not `--force-with-lease`): rewrites shared history
 * - a download run as code: `curl … | sh`, `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget …)"`
 */
export const DEFAULT_DENY_PATTERNS: readonly DenyPattern[] = Object.freeze([
  {
    label: "rm -rf /",
    test: (c: AnalysedCommand) =>
      c.name === "rm" && operands(c.args).some((target) => isProtectedTarget(target, c.cwd)),
  },
  {
    label: "find / -delete",
    test: (c: AnalysedCommand) => {
      if (c.name !== "find") return false;
      const texts = c.args.map((arg) => arg.text);
      const firstExpression = texts.findIndex((t) => /^[-(!]/.test(t));
      const roots = firstExpression === -1 ? texts : texts.slice(0, firstExpression);
      const deletes =
        texts.includes("-delete") ||
        texts.some(
          (t, k) =>
            /^-(?:exec|execdir|ok|okdir)$/.test(t) &&
            /(?:^|\/)(?:rm|shred)$/.test(texts[k + 1] ?? ""),
        );
      return deletes && roots.some((root) => isProtectedTarget(root, c.cwd));
    },
  },
  { label: "mkfs", test: (c: AnalysedCommand) => /^mkfs(?:\.\w+)?$|^mke2fs$/.test(c.name) },
  {
    label: "dd to a disk",
    test: (c: AnalysedCommand) =>
      c.name === "dd" &&
      c.args.some((arg) => /^of=\/dev\/(?!null$|zero$|stdout$|stderr$)/.test(arg.text)),
  },
  {
    label: "> /dev/sd",
    test: (c: AnalysedCommand) =>
      c.redirects.some(
        (r) =>
          r.op.includes(">") &&
          /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|mapper\/)/.test(r.target?.text ?? ""),
      ),
  },
  { label: ":(){ :|:& };:", pattern: /:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:/ },
  {
    label: "shutdown",
    test: (c: AnalysedCommand) =>
      /^(?:shutdown|reboot|halt|poweroff)$/.test(c.name) ||
      (c.name === "systemctl" &&
        c.args.some((a) => /^(?:poweroff|reboot|halt|kexec)$/.test(a.text))),
  },
  {
    label: "init 0",
    test: (c: AnalysedCommand) =>
      (c.name === "init" || c.name === "telinit") && /^[06]$/.test(c.args[0]?.text ?? ""),
  },
  {
    label: "chmod -R 777 /",
    test: (c: AnalysedCommand) =>
      c.name === "chmod" &&
      hasShortFlag(c.args, "R", "--recursive") &&
      operands(c.args)
        .slice(1)
        .some((target) => isProtectedTarget(target, c.cwd)),
  },
  {
    label: "chown -R /",
    test: (c: AnalysedCommand) =>
      (c.name === "chown" || c.name === "chgrp") &&
      hasShortFlag(c.args, "R", "--recursive") &&
      operands(c.args)
        .slice(1)
        .some((target) => isProtectedTarget(target, c.cwd)),
  },
  {
    label: "git push --force",
    test: (c: AnalysedCommand) => {
      if (c.name !== "git") return false;
      const texts = c.args.map((arg) => arg.text);
      const push = texts.indexOf("push");
      if (push === -1) return false;
      return texts
        .slice(push + 1)
        .some(
          (t) =>
            t === "--force" ||
            (/^-[a-zA-Z]+$/.test(t) && t.includes("f")) ||
            (t.startsWith("+") && t.length > 1),
        );
    },
  },
  {
    label: "curl | sh",
    test: (c: AnalysedCommand) => {
      // `$(curl x)` as the command itself runs what was downloaded
      if (downloads(c.program)) return true;
      if (!isRunner(c.name) && c.name !== "eval") return false;
      // `curl x | sh`, `sh < <(curl x)`
      if (c.stdinDownloaded && readsProgramFromStdin(c)) return true;
      // `bash <(curl x)`, `source <(curl x)`
      if (isRunner(c.name) && c.args.some((arg) => arg.processSubstitution && downloads(arg)))
        return true;
      // `sh -c "$(curl x)"`, `python3 -c "$(curl x)"`, `eval "$(curl x)"`
      if (c.name === "eval") return c.args.some(downloads);
      return downloads(inlineProgram(c));
    },
  },
] satisfies DenyPattern[]);

/** The program and its arguments after prefixes (assignments, `sudo`, `env`, …); undefined when none. */
function unwrap(words: readonly Word[]): { name: string; program: Word; args: Word[] } | undefined {
  let k = 0;
  while (k < words.length) {
    const text = (words[k] as Word).text;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(text) || RESERVED.has(text) || RESERVED_MORE.has(text)) {
      k++;
      continue;
    }
    const program = words[k] as Word;
    // a substitution is not a path: `$(curl -s x/y)` keeps its whole text
    const name = program.subs.length > 0 ? text : path.posix.basename(text);
    const takesValue = WRAPPERS[name];
    if (takesValue === undefined) return { name, program, args: words.slice(k + 1) };
    k++;
    // the wrapper's own options (and their values), then the wrapped command
    while (k < words.length) {
      const option = (words[k] as Word).text;
      if (option === "--") {
        k++;
        break;
      }
      if (!option.startsWith("-") && !(name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(option)))
        break;
      k += takesValue.has(option) ? 2 : 1;
    }
    // `timeout 10 cmd`, `nice 5`…: a leading number is the wrapper's argument
    if ((name === "timeout" || name === "nice") && /^[\d.]+[smhd]?$/.test(words[k]?.text ?? ""))
      k++;
  }
  return undefined;
}

/** Every simple command of the script, nested scripts included, with its cd and pipe context. */
export function analyseCommand(command: string): AnalysedCommand[] {
  const out: AnalysedCommand[] = [];
  collect(parseScript(command), out, 0);
  return out;
}

function collect(script: Script, out: AnalysedCommand[], depth: number): void {
  let cwd: string | undefined;
  for (const pipeline of script.pipelines) {
    let downloadedBefore = false;
    for (const stage of pipeline) {
      // a bare redirect (`> /dev/sda`) is checked too
      const resolved = unwrap(stage.words) ?? { name: "", program: undefined, args: [] };
      const stdinFromDownload = stage.redirects.some(
        (r) => r.op === "<" && r.target !== undefined && downloads(r.target),
      );
      const analysed: AnalysedCommand = {
        ...resolved,
        redirects: stage.redirects,
        cwd,
        stdinDownloaded: downloadedBefore || stdinFromDownload,
        text: stage.words.map((word) => word.text).join(" "),
      };
      // what `sh -c '…'` runs is read as a script of its own (its substitutions with it)
      const inlineWord = SHELLS.has(resolved.name) ? inlineProgram(analysed) : undefined;
      for (const word of [...stage.words, ...stage.redirects.flatMap((r) => r.target ?? [])]) {
        if (word === inlineWord && depth < 8) continue;
        for (const sub of word.subs) collect(sub, out, depth + 1);
      }
      if (resolved.name !== "" || stage.redirects.length > 0) out.push(analysed);
      if (DOWNLOADERS.has(resolved.name) || stage.words.some(downloads)) downloadedBefore = true;
      if (resolved.name === "cd" && pipeline.length === 1) cwd = nextCwd(cwd, resolved.args);
      if (depth < 8) {
        const inline =
          resolved.name === "eval"
            ? resolved.args.map((arg) => arg.text).join(" ")
            : inlineWord?.text;
        if (inline !== undefined) collect(parseScript(inline, depth + 1), out, depth + 1);
      }
    }
  }
}

function nextCwd(cwd: string | undefined, args: readonly Word[]): string | undefined {
  const target = operands(args)[0];
  if (target === undefined || target === "~" || /^(?:\$HOME|\$\{HOME\})$/.test(target)) return "~";
  if (target.startsWith("/")) return path.posix.normalize(target);
  if (target.startsWith("~/")) return `~/${target.slice(2)}`;
  if (cwd === undefined || cwd.startsWith("~")) return undefined;
  return path.posix.join(cwd, target);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").toLowerCase();
}

/** The first pattern the command matches, as its display text; undefined when none does. */
export function matchDenyPattern(
  command: string,
  patterns: readonly DenyPattern[],
): string | undefined {
  const commands = analyseCommand(command);
  const texts = [command, ...commands.map((c) => c.text)];
  for (const entry of patterns) {
    if (typeof entry === "string") {
      const needle = collapse(entry).trim();
      if (needle !== "" && texts.some((text) => collapse(text).includes(needle))) return entry;
    } else if ("pattern" in entry) {
      // a fresh regex so a /g or /y flag's lastIndex can never leak between calls
      const re = new RegExp(entry.pattern.source, entry.pattern.flags.replace(/[gy]/g, ""));
      if (texts.some((text) => re.test(text))) return entry.label;
    } else if (commands.some((c) => entry.test(c))) {
      return entry.label;
    }
  }
  return undefined;
}
