// Scoped "Always allow" rules for bash (issue #27 case 2), written as Claude Code writes its
// permission rules: `Bash(npm test)` allows exactly that command, `Bash(npm test:*)` every command
// that starts with the words `npm test`. A session keeps its rules in `allow_rules`
// (session-config.ts); the approval policy consults them before a call waits for a person.
//
// Strict by design: a prefix rule allows only a SIMPLE command, one made of plain words. A command
// holding anything that can chain, pipe, substitute, redirect or background another command
// (`;`, `&`, `|`, `$`, backquotes, `<`, `>`, parentheses, a backslash, a line break, a control
// character) never matches a prefix rule, so `npm test; rm -rf /`, `npm test && curl …` and
// `npm test $(rm -rf /)` all ask. An exact rule allows only the identical command text.

/** The tool a `Bash(...)` rule speaks of. */
export const BASH_TOOL = "bash";

export type PermissionRule =
  | { kind: "exact"; tool: typeof BASH_TOOL; command: string }
  | { kind: "prefix"; tool: typeof BASH_TOOL; prefix: string };

export type ParsedRule = { ok: true; rule: PermissionRule } | { ok: false; error: string };

/** The longest rule text accepted (a rule holds one command). */
export const MAX_RULE_CHARS = 2_000;

// The characters a simple command may hold: words, quotes, and punctuation that cannot start a
// second command or expand into one. Everything else (; & | $ ` < > ( ) \ newline …) is refused.
const SIMPLE_COMMAND = /^[A-Za-z0-9 \t_\-./:=,+@%~'"*?[\]{}#!^]+$/;

/**
 * Whether `command` is one plain command: no operator, pipe, substitution, redirection, subshell,
 * escape or line break anywhere in it, quoted or not. Only such a command may ride on a prefix.
 */
export function isSimpleCommand(command: string): boolean {
  return SIMPLE_COMMAND.test(command);
}

/** Parses `Bash(command)` or `Bash(prefix:*)`; the error says what is wrong. */
export function parsePermissionRule(text: string): ParsedRule {
  if (text.length > MAX_RULE_CHARS) {
    return { ok: false, error: `a rule is at most ${MAX_RULE_CHARS} characters` };
  }
  const match = /^Bash\(([\s\S]*)\)$/.exec(text);
  if (match === null) {
    return { ok: false, error: "write a rule as Bash(command) or Bash(command prefix:*)" };
  }
  const inner = match[1] ?? "";
  if (inner.endsWith(":*")) {
    const prefix = inner.slice(0, -2).trim();
    if (prefix === "") return { ok: false, error: "a prefix rule needs a command prefix" };
    if (!isSimpleCommand(prefix)) {
      return {
        ok: false,
        error: "a prefix may hold only plain words (no ; & | $ ` < > ( ) \\ or line breaks)",
      };
    }
    return { ok: true, rule: { kind: "prefix", tool: BASH_TOOL, prefix } };
  }
  const command = inner.trim();
  if (command === "") return { ok: false, error: "an exact rule needs a command" };
  return { ok: true, rule: { kind: "exact", tool: BASH_TOOL, command } };
}

/** The rule's text, as parsePermissionRule reads it. */
export function formatPermissionRule(rule: PermissionRule): string {
  switch (rule.kind) {
    case "exact":
      return `Bash(${rule.command})`;
    case "prefix":
      return `Bash(${rule.prefix}:*)`;
    default:
      return rule satisfies never;
  }
}

/** The command of a bash call, or undefined when the call is not a bash call with one. */
export function bashCommandOf(toolName: string, args: Record<string, unknown>): string | undefined {
  if (toolName !== BASH_TOOL) return undefined;
  return typeof args.command === "string" ? args.command : undefined;
}

/**
 * Whether `rule` allows the call. An exact rule: the identical command (surrounding whitespace
 * aside). A prefix rule: a simple command whose words start with the prefix's words, the prefix
 * ending at a word boundary (`Bash(ls:*)` allows `ls -la`, never `lsof`).
 */
export function ruleAllows(
  rule: PermissionRule,
  toolName: string,
  args: Record<string, unknown>,
): boolean {
  const raw = bashCommandOf(toolName, args);
  if (raw === undefined) return false;
  const command = raw.trim();
  switch (rule.kind) {
    case "exact":
      return command === rule.command;
    case "prefix": {
      if (!isSimpleCommand(command)) return false;
      const words = command.split(/[ \t]+/);
      const prefixWords = rule.prefix.split(/[ \t]+/);
      return (
        words.length >= prefixWords.length && prefixWords.every((word, i) => words[i] === word)
      );
    }
    default:
      return rule satisfies never;
  }
}

/** The first of `rules` (texts) that allows the call; unparsable texts never allow anything. */
export function matchingRule(
  rules: readonly string[],
  toolName: string,
  args: Record<string, unknown>,
): string | undefined {
  return rules.find((text) => {
    const parsed = parsePermissionRule(text);
    return parsed.ok && ruleAllows(parsed.rule, toolName, args);
  });
}

// Tools whose first word names a program and whose second names what it does: a prefix keeps
// both (`npm test`, `git status`); `npm run build` keeps three.
const SUBCOMMAND_TOOLS = new Set([
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "npx",
  "git",
  "cargo",
  "go",
  "make",
  "docker",
  "kubectl",
  "pip",
  "poetry",
  "uv",
  "dotnet",
  "mvn",
  "gradle",
  "deno",
]);
const RUN_WORDS = new Set(["run", "exec", "run-script", "x"]);
const PLAIN_WORD = /^[A-Za-z0-9][A-Za-z0-9_.:@-]*$/;

/**
 * The rules the approval card offers for a bash call: always its exact command, and a prefix
 * (its program, and subcommand where the program has them) when the command is simple.
 */
export function suggestedRules(command: string): { exact: string; prefix?: string } {
  const trimmed = command.trim();
  const exact = formatPermissionRule({ kind: "exact", tool: BASH_TOOL, command: trimmed });
  if (!isSimpleCommand(trimmed)) return { exact };
  const words = trimmed.split(/[ \t]+/);
  const first = words[0] ?? "";
  if (!PLAIN_WORD.test(first)) return { exact };
  const taken = [first];
  if (SUBCOMMAND_TOOLS.has(first)) {
    const second = words[1];
    if (second !== undefined && PLAIN_WORD.test(second)) {
      taken.push(second);
      const third = words[2];
      if (RUN_WORDS.has(second) && third !== undefined && PLAIN_WORD.test(third)) {
        taken.push(third);
      }
    }
  }
  return {
    exact,
    prefix: formatPermissionRule({ kind: "prefix", tool: BASH_TOOL, prefix: taken.join(" ") }),
  };
}
