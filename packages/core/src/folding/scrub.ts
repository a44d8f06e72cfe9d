import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { rules as recommendedRules } from "@secretlint/secretlint-rule-preset-recommend";
import { MIN_SECRET_LENGTH, redact, SECRET_NAME, urlPassword } from "../tools/secrets.js";

// Secret scrubbing of a fold's return message (issue #13): what a fold found must not carry a
// credential into its parent's context. Unlike tools/secrets.ts, which redacts the secret VALUES
// Arbor knows (its environment), this finds secrets nobody told us about, by their shape:
// secretlint with its recommended preset, plus rules for what the preset misses (checked: it
// reports neither AWS key pairs nor PEM bodies nor generic assignments). Every span found is
// replaced with `[redacted]`, and so is every other occurrence of the same text; overlapping
// spans are merged first, so no fragment of a secret survives between two findings.

/**
 * The recommended preset's rules, each on its own, less its comment filter: that rule obeys
 * `secretlint-disable` comments in the scanned text, so a return message that said
 * "secretlint-disable" carried every token after it through (checked: a GitHub and a GitLab
 * token). A preset's members cannot be disabled from the config (secretlint 12 ignores
 * `disabled` inside a preset), hence the list.
 */
const SECRETLINT_CONFIG = {
  rules: recommendedRules
    .filter((rule) => rule.meta.id !== "@secretlint/secretlint-rule-filter-comments")
    .map((rule) => ({ id: rule.meta.id, rule })),
};

/** A rule of our own: each match's `value` group (or the whole match) is a secret. */
interface ShapeRule {
  id: string;
  pattern: RegExp;
  /** false: the match is not a secret after all */
  accept?: (value: string) => boolean;
}

const BASE64_40 = /^[A-Za-z0-9/+]{40}$/;

/** Names that are also everyday words: a lower-case word after one is not taken for a secret. */
const GENERIC_NAME = /^(?:key|token|secret|auth|cookie|credentials?|authorization)$/i;

/** Values of a secret-named assignment that are not secrets. */
const NOT_A_SECRET =
  /^(?:true|false|null|nil|none|undefined|\d+(?:\.\d+)?|\*+|x+|\.{3}|…|\[redacted\]|<[^>]*>|\$\{?[A-Za-z_][\w.]*\}?|process\.env\.\w+|os\.environ.*|env\(.*\))$/i;

const SHAPE_RULES: ShapeRule[] = [
  {
    // the whole block, header to footer; a block cut off before its footer runs to the end
    id: "pem-private-key",
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  {
    id: "aws-access-key-id",
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b/g,
  },
  {
    // a standalone 40-character base64 word in mixed case: the shape of an AWS secret key
    // (a git SHA is lowercase hex, so it is not taken)
    id: "aws-secret-access-key",
    pattern: /(?<![A-Za-z0-9/+=])(?<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/g,
    accept: (v) => BASE64_40.test(v) && /[a-z]/.test(v) && /[A-Z]/.test(v) && /[0-9/+]/.test(v),
  },
  {
    id: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  },
  {
    // OpenAI (sk-, sk-proj-, sk-svcacct-) and Anthropic (sk-ant-…) keys of any length: the
    // preset knows only some lengths (GitHub, GitLab and Slack tokens it finds on its own)
    id: "sk-api-key",
    pattern: /\bsk-[A-Za-z0-9_-]{20,}/g,
  },
  {
    id: "bearer-token",
    pattern: /\bBearer\s+(?<value>[A-Za-z0-9._~+/-]{8,}=*)/g,
  },
  {
    // scheme://user:password@host: the password as written
    id: "url-password",
    pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:(?<value>[^\s@/]+)@/gi,
  },
  {
    // name = value, name: value, "name": "value", with a name that says it is secret
    id: "secret-assignment",
    pattern:
      /(?<name>[A-Za-z_][\w.-]*)["']?\s*(?::=|=|:)\s*(?:"(?<dq>[^"\n]*)"|'(?<sq>[^'\n]*)'|(?<bare>[^\s"',;}\])]+))/g,
  },
];

/** Character ranges [start, end) of every secret found by our own rules. */
function shapeRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const rule of SHAPE_RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      const start = match.index;
      if (rule.id === "secret-assignment") {
        const groups = match.groups ?? {};
        const name = groups.name ?? "";
        if (!SECRET_NAME.test(name) && !/passwd|pwd$/i.test(name)) continue;
        const value = groups.dq ?? groups.sq ?? groups.bare ?? "";
        if (!isAssignedSecret(value)) continue;
        // prose ("the primary key: user_id", "next token: identifier"), not a credential
        if (GENERIC_NAME.test(name) && /^[a-z][a-z_-]*[.!?]?$/.test(value)) continue;
        const at = start + match[0].lastIndexOf(value);
        ranges.push([at, at + value.length]);
        continue;
      }
      const value = match.groups?.value;
      if (value !== undefined) {
        if (rule.accept && !rule.accept(value)) continue;
        const at = start + match[0].indexOf(value);
        ranges.push([at, at + value.length]);
      } else {
        if (rule.accept && !rule.accept(match[0])) continue;
        ranges.push([start, start + match[0].length]);
      }
    }
  }
  return ranges;
}

function isAssignedSecret(value: string): boolean {
  if (NOT_A_SECRET.test(value)) return false;
  return value.length >= MIN_SECRET_LENGTH || (value.length >= 3 && /[0-9]/.test(value));
}

/**
 * secretlint's module-wide profiler (its CLI's `--profile`) marks Node's performance timeline four
 * times per rule per lint, and its observer files each mark in an array it searches at the next
 * one and measures it a turn later: measured, about half of a short scrub's time, an array that
 * grew with every call (~15 ms per scrub after a few thousand) and marks left in Node's timeline
 * for good. Nothing in Arbor reads the profile, so its `mark` is made a no-op on the one instance
 * (this is the only module that runs secretlint; the rules and their results do not see it).
 */
secretLintProfiler.mark = () => undefined;

/**
 * The rules of the preset (as configured above) that the pre-check below was derived from, read
 * one by one in @secretlint/secretlint-rule-preset-recommend 12.0.0. A preset with any other
 * rule (an upgrade) turns the pre-check off: secretlint then runs on every text.
 */
export const AUDITED_SECRETLINT_RULES: readonly string[] = [
  "@secretlint/secretlint-rule-aws",
  "@secretlint/secretlint-rule-gcp",
  "@secretlint/secretlint-rule-npm",
  "@secretlint/secretlint-rule-slack",
  "@secretlint/secretlint-rule-basicauth",
  "@secretlint/secretlint-rule-openai",
  "@secretlint/secretlint-rule-anthropic",
  "@secretlint/secretlint-rule-groq",
  "@secretlint/secretlint-rule-huggingface",
  "@secretlint/secretlint-rule-linear",
  "@secretlint/secretlint-rule-notion",
  "@secretlint/secretlint-rule-privatekey",
  "@secretlint/secretlint-rule-sendgrid",
  "@secretlint/secretlint-rule-shopify",
  "@secretlint/secretlint-rule-github",
  "@secretlint/secretlint-rule-gitlab",
  "@secretlint/secretlint-rule-grafana",
  "@secretlint/secretlint-rule-1password",
  "@secretlint/secretlint-rule-database-connection-string",
  "@secretlint/secretlint-rule-hashicorp-vault",
  "@secretlint/secretlint-rule-vercel",
  "@secretlint/secretlint-rule-databricks",
  "@secretlint/secretlint-rule-docker",
  "@secretlint/secretlint-rule-figma",
];

/**
 * A literal that every finding of an audited rule contains (case aside: the pre-check ignores
 * case, so it matches at least where the rules' own patterns, case-sensitive or not, match). Each
 * rule reports only what one of its patterns matches in the text (`matchAll` over the content):
 * - aws: without options only the secret access key assignment, `(SECRET|secret|Secret)…`
 *   (the key id and account id scans are off unless enableIDScanRule; their prefixes are
 *   listed anyway);
 * - gcp: only files named .json or .p12 (our text has no extension): never;
 * - npm: `npm_…`; `https?://…:x-oauth-basic@github.com/` (package files) and `_authToken=`
 *   (.npmrc files), neither our file name, are listed anyway;
 * - slack: `xoxb|xoxp|xapp|xoxa|xoxo|xoxr-…`, `https://hooks.slack.com/…`;
 * - basicauth: `(https?|ftps?)://user:password@host`;
 * - openai: `sk-…`; anthropic: `sk-ant-api0…`; groq: `gsk_`; huggingface: `hf_`;
 *   linear: `lin_api_`; notion: `ntn_`; privatekey: `-----BEGIN`; sendgrid: `SG.`;
 *   shopify: `shppa_|shpca_|shpat_|shpss_`; github: `ghp_|gho_|ghu_|ghs_|ghr_|github_pat_`;
 *   gitlab: `glpat-`; grafana: `glc_|glsa_`; 1password: `ops_`; hashicorp-vault: `hvs.|hvb.|hvr.`;
 *   vercel: `vcp_|vci_|vca_|vcr_|vck_`; databricks: `dapi`; docker: `dckr_pat_`; figma: `figd_`;
 * - database-connection-string: `mongodb(+srv)://`, `(jdbc:)mysql(x)://`, `postgres(ql)://`.
 * The filter-comments rule reports nothing (and is not run).
 */
const SECRETLINT_LITERALS =
  /secret|:\/\/|_authtoken|npm_|xox[bpaor]|xapp|sk-|gsk_|hf_|lin_api_|ntn_|-----begin|sg\.|shp(?:pa|ca|at|ss)_|gh[pousr]_|github_pat_|glpat-|glc_|glsa_|ops_|hv[sbr]\.|vc[pciark]_|dapi|dckr_pat_|figd_|a3t|akia|agpa|aida|aroa|aipa|anpa|anva|asia/i;

/** The preset holds exactly the audited rules: the pre-check is sound for it. */
const PRECHECK_SOUND =
  SECRETLINT_CONFIG.rules.length === AUDITED_SECRETLINT_RULES.length &&
  SECRETLINT_CONFIG.rules.every((r) => AUDITED_SECRETLINT_RULES.includes(r.id));

/**
 * false only when no secretlint rule can report anything in `text`: it holds none of the
 * literals every finding contains. A clean message skips secretlint's pass (~0.1–0.2 ms per
 * scrub, most of it setting up its 24 rules); our own rules still run on it.
 */
export function secretlintMayFind(text: string): boolean {
  return !PRECHECK_SOUND || SECRETLINT_LITERALS.test(text);
}

async function secretlintRanges(text: string): Promise<Array<[number, number]>> {
  try {
    // (the profile is released all the same: its observer files anyone's marks meanwhile)
    if (!secretlintMayFind(text)) return [];
    const result = await lintSource({
      source: { filePath: "fold-return.txt", content: text, contentType: "text" },
      options: { config: SECRETLINT_CONFIG, maskSecrets: false, noPhysicFilePath: true },
    });
    // secretlint drops a leading byte order mark and counts its ranges without it
    const shift = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    return result.messages.map((m) => [m.range[0] + shift, m.range[1] + shift]);
  } finally {
    await releaseProfile();
  }
}

/**
 * The profiler's observer still files every other mark made in the process (anyone's
 * `performance.mark`), in arrays nothing reads: they are emptied after each lint.
 */
async function releaseProfile(): Promise<void> {
  // getEntries/getMeasures answer the profiler's own arrays, once its pending measures are made
  (await secretLintProfiler.getEntries()).length = 0;
  (await secretLintProfiler.getMeasures()).length = 0;
}

/** Overlapping or touching ranges joined, in order. */
function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = ranges.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/**
 * The secrets found in `text`: the spans our rules and secretlint report, merged, plus the
 * decoded passwords of URLs among them. Longest first, as `redact` wants them.
 */
export async function findSecrets(text: string): Promise<string[]> {
  let ranges = shapeRanges(text);
  try {
    ranges = ranges.concat(await secretlintRanges(text));
  } catch {
    // secretlint failing leaves our own rules, which cover every shape we promise
  }
  const found = new Set<string>();
  for (const [start, end] of mergeRanges(ranges)) {
    const span = text.slice(start, end);
    found.add(span);
    const decoded = urlPassword(span);
    if (decoded.length >= MIN_SECRET_LENGTH) found.add(decoded);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every secret found replaced by `[redacted]`, each occurrence of it; text without
 * secrets comes back unchanged.
 */
export async function scrubSecrets(text: string): Promise<string> {
  if (text === "") return text;
  const secrets = await findSecrets(text);
  if (secrets.length === 0) return text;
  // the merged spans first, then any repeat of them elsewhere in the text
  return redact(text, secrets);
}
