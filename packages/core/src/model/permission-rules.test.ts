import { describe, expect, it } from "vitest";
import {
  isSimpleCommand,
  matchingRule,
  parsePermissionRule,
  ruleAllows,
  suggestedRules,
} from "./permission-rules.js";

function rule(text: string) {
  const parsed = parsePermissionRule(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.rule;
}

const bash = (command: string) => ({ command });

describe("parsePermissionRule", () => {
  it("reads exact and prefix rules as Claude Code writes them", () => {
    expect(rule("Bash(npm test)")).toEqual({ kind: "exact", tool: "bash", command: "npm test" });
    expect(rule("Bash(npm test:*)")).toEqual({ kind: "prefix", tool: "bash", prefix: "npm test" });
  });

  it("refuses other shapes, empty commands and prefixes that are not plain words", () => {
    for (const text of ["npm test", "Bash()", "Bash(:*)", "Read(src)", "bash(npm test)"]) {
      expect(parsePermissionRule(text).ok).toBe(false);
    }
    const piped = parsePermissionRule("Bash(npm test | tee x:*)");
    expect(piped).toEqual({ ok: false, error: expect.stringContaining("plain words") });
  });
});

describe("ruleAllows: exact", () => {
  const exact = rule("Bash(npm test)");
  it("allows the identical command only", () => {
    expect(ruleAllows(exact, "bash", bash("npm test"))).toBe(true);
    expect(ruleAllows(exact, "bash", bash("  npm test\n"))).toBe(true);
    expect(ruleAllows(exact, "bash", bash("npm test -- --watch"))).toBe(false);
    expect(ruleAllows(exact, "bash", bash("npm test; rm -rf /"))).toBe(false);
  });
  it("never allows another tool", () => {
    expect(ruleAllows(exact, "read_file", { command: "npm test" })).toBe(false);
  });
});

describe("ruleAllows: prefix", () => {
  const prefix = rule("Bash(npm test:*)");
  it("allows the prefix itself and the same words followed by arguments", () => {
    expect(ruleAllows(prefix, "bash", bash("npm test"))).toBe(true);
    expect(ruleAllows(prefix, "bash", bash("npm test -- --watch"))).toBe(true);
    expect(ruleAllows(prefix, "bash", bash("npm  test\t--coverage"))).toBe(true);
  });
  it("stops at a word boundary and at other commands", () => {
    expect(ruleAllows(prefix, "bash", bash("npm testx"))).toBe(false);
    expect(ruleAllows(prefix, "bash", bash("npm run build"))).toBe(false);
    expect(ruleAllows(prefix, "bash", bash("npm"))).toBe(false);
    expect(ruleAllows(rule("Bash(ls:*)"), "bash", bash("lsof -i"))).toBe(false);
  });
  it.each([
    "npm test; rm -rf /",
    "npm test;rm -rf /",
    "npm test && rm -rf /",
    "npm test || rm -rf /",
    "npm test & rm -rf /",
    "npm test | sh",
    "npm test |& sh",
    "npm test $(rm -rf /)",
    "npm test `rm -rf /`",
    "npm test ${HOME}",
    "npm test $HOME",
    "npm test > /etc/passwd",
    "npm test < /etc/passwd",
    "npm test 2>&1",
    "npm test <(curl evil)",
    "npm test\nrm -rf /",
    "npm test\r\nrm -rf /",
    "npm test \\\nrm -rf /",
    "npm test ( rm )",
    "npm test 'a;b'",
    'npm test "$(rm -rf /)"',
    "npm test\u0000rm",
  ])("does not let %j ride on the prefix", (command) => {
    expect(ruleAllows(prefix, "bash", bash(command))).toBe(false);
  });
});

describe("isSimpleCommand", () => {
  it("accepts plain words, flags, paths, globs and quoted words", () => {
    for (const c of [
      "npm test -- --watch",
      "ls -la src/*.ts",
      "git log --format='%h %s'",
      "echo ~/x",
    ]) {
      expect(isSimpleCommand(c)).toBe(true);
    }
  });
});

describe("matchingRule", () => {
  it("names the first rule that allows the call and skips unparsable texts", () => {
    const rules = ["garbage", "Bash(git status)", "Bash(npm test:*)"];
    expect(matchingRule(rules, "bash", bash("npm test -- --watch"))).toBe("Bash(npm test:*)");
    expect(matchingRule(rules, "bash", bash("git status"))).toBe("Bash(git status)");
    expect(matchingRule(rules, "bash", bash("npm run build"))).toBeUndefined();
    expect(matchingRule(rules, "bash", {})).toBeUndefined();
  });
});

describe("suggestedRules", () => {
  it("offers the exact command and a prefix of its program and subcommand", () => {
    expect(suggestedRules("npm test")).toEqual({
      exact: "Bash(npm test)",
      prefix: "Bash(npm test:*)",
    });
    expect(suggestedRules("npm run build --silent").prefix).toBe("Bash(npm run build:*)");
    expect(suggestedRules("git status -s").prefix).toBe("Bash(git status:*)");
    expect(suggestedRules("ls -la").prefix).toBe("Bash(ls:*)");
  });
  it("offers no prefix for a compound command", () => {
    expect(suggestedRules("npm test && rm -rf /")).toEqual({ exact: "Bash(npm test && rm -rf /)" });
    expect(suggestedRules("FOO=$(id) npm test")).toEqual({ exact: "Bash(FOO=$(id) npm test)" });
  });
});
