import { parse as parseYaml } from "yaml";

// YAML front matter of Markdown files (REQ-110): SKILL.md (Anthropic's Agent Skills format) and
// agent files (Claude Code's `.claude/agents/*.md`). The file must begin with a `---` line; the
// YAML block runs to the next `---` line; the rest is the body. Failures are values naming the
// reason, never throws: a malformed file is reported, it does not stop the others loading.

export type FrontMatterError =
  /** no opening/closing `---`, YAML that does not parse, or YAML that is not a mapping */
  | { kind: "invalid_front_matter"; reason: string }
  /** a required field is absent, empty or not a string */
  | { kind: "missing_field"; field: string; reason: string };

export type FrontMatterResult =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; error: FrontMatterError };

/** Splits and parses the front matter. Tolerates a BOM and CRLF line ends. */
export function parseFrontMatter(content: string): FrontMatterResult {
  const text = content.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!text.startsWith("---\n") && text !== "---") {
    return invalid("the file does not begin with a `---` front matter line");
  }
  const rest = text.slice(4);
  const close = /^---[ \t]*$/m.exec(rest);
  if (close === null) return invalid("the front matter has no closing `---` line");
  const yamlText = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\n/, "");
  let data: unknown;
  try {
    data = parseYaml(yamlText);
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return invalid(`the front matter is not valid YAML: ${message}`);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== "object" || Array.isArray(data)) {
    return invalid("the front matter is not a mapping of fields");
  }
  return { ok: true, data: data as Record<string, unknown>, body };
}

/** A required string field, trimmed; an error naming it when absent or empty. */
export function requiredString(
  data: Record<string, unknown>,
  field: string,
): { ok: true; value: string } | { ok: false; error: FrontMatterError } {
  const value = data[field];
  if (value === undefined || value === null) {
    return {
      ok: false,
      error: { kind: "missing_field", field, reason: `\`${field}\` is missing` },
    };
  }
  if (typeof value !== "string" && typeof value !== "number") {
    return {
      ok: false,
      error: { kind: "missing_field", field, reason: `\`${field}\` must be a string` },
    };
  }
  const trimmed = String(value).trim();
  if (trimmed === "") {
    return { ok: false, error: { kind: "missing_field", field, reason: `\`${field}\` is empty` } };
  }
  return { ok: true, value: trimmed };
}

function invalid(reason: string): FrontMatterResult {
  return { ok: false, error: { kind: "invalid_front_matter", reason } };
}
