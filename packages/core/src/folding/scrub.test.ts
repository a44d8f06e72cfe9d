import { generateKeyPairSync } from "node:crypto";
import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { rules as recommendedRules } from "@secretlint/secretlint-rule-preset-recommend";
import { describe, expect, it } from "vitest";
import { AUDITED_SECRETLINT_RULES, findSecrets, scrubSecrets, secretlintMayFind } from "./scrub.js";

// Planted secrets, shaped like the real thing (none is live). Long random-looking parts are
// built here so the test file itself holds no token a scanner would flag as real.
const alnum = (n: number, seed: number): string => {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let out = "";
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += chars[x % chars.length];
  }
  return out;
};
const b64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString("base64url");

const AWS_ID = "AKIAIOSFODNN7EXAMPLE";
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const AWS_ID_2 = `ASIA${alnum(16, 7).toUpperCase()}`;
const AWS_SECRET_2 = `${alnum(18, 8)}+${alnum(21, 9)}`;
const GITHUB = `ghp_${alnum(36, 1)}`;
const GITHUB_FINE = `github_pat_11${alnum(20, 2)}_${alnum(59, 3)}`;
const GITLAB = `glpat-${alnum(20, 4)}`;
const SLACK = `xoxb-1234567890123-1234567890123-${alnum(24, 5)}`;
const SLACK_HOOK = `https://hooks.slack.com/services/T0000000/B0000000/${alnum(24, 6)}`;
const OPENAI = `sk-proj-${alnum(48, 10)}T3BlbkFJ${alnum(48, 11)}`;
const OPENAI_LEGACY = `sk-${alnum(20, 12)}T3BlbkFJ${alnum(20, 13)}`;
const ANTHROPIC = `sk-ant-api03-${alnum(93, 14)}AA`;
const JWT = `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url({ sub: "1234567890", name: "A User", iat: 1516239022 })}.${alnum(43, 15)}`;
const PG_PASSWORD = "S3cr3t-P%40ss";
const PG_URL = `postgres://app:${PG_PASSWORD}@db.internal:5432/app`;
const MONGO_URL = `mongodb+srv://admin:${alnum(16, 16)}@cluster0.example.net/test`;
const REDIS_URL = `redis://:${alnum(20, 17)}@cache:6379/0`;

function pemKeys(): Record<"pkcs1" | "pkcs8" | "encrypted" | "sec1" | "ed25519", string> {
  const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const ed = generateKeyPairSync("ed25519");
  return {
    pkcs1: rsa.privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    pkcs8: rsa.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    encrypted: rsa.privateKey
      .export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "pw" })
      .toString(),
    sec1: ec.privateKey.export({ type: "sec1", format: "pem" }).toString(),
    ed25519: ed.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

/** Every piece of `secret` at least `size` long that still appears in `out`. */
function fragments(out: string, secret: string, size = 8): string[] {
  const found: string[] = [];
  const n = Math.min(size, secret.length);
  for (let i = 0; i + n <= secret.length; i++) {
    const piece = secret.slice(i, i + n);
    if (out.includes(piece)) found.push(piece);
  }
  return found;
}

/** The parts of a PEM block that are secret: every body line (headers are not). */
function pemBody(pem: string): string[] {
  return pem
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("-----") && !line.includes(":"));
}

describe("scrubSecrets", () => {
  const planted: Array<[string, string, string]> = [
    ["AWS key id", `aws_access_key_id = ${AWS_ID}`, AWS_ID],
    ["AWS secret key", `aws_secret_access_key = ${AWS_SECRET}`, AWS_SECRET],
    ["AWS secret key, bare", `found ${AWS_SECRET_2} in the log`, AWS_SECRET_2],
    ["AWS key id, session", `id ${AWS_ID_2}`, AWS_ID_2],
    ["GitHub classic", `export GH=${GITHUB}`, GITHUB],
    ["GitHub fine-grained", `token is ${GITHUB_FINE}.`, GITHUB_FINE],
    ["GitLab", `use ${GITLAB} for the API`, GITLAB],
    ["Slack", `SLACK=${SLACK}`, SLACK],
    ["Slack webhook", `posted to ${SLACK_HOOK}`, SLACK_HOOK],
    ["OpenAI project key", `OPENAI_API_KEY=${OPENAI}`, OPENAI],
    ["OpenAI legacy key", `the key ${OPENAI_LEGACY} worked`, OPENAI_LEGACY],
    ["Anthropic", `x-api-key: ${ANTHROPIC}`, ANTHROPIC],
    ["JWT", `Authorization: Bearer ${JWT}`, JWT],
    ["JWT, bare", `cookie session=${JWT}; path=/`, JWT],
    ["Postgres URL", `DATABASE_URL=${PG_URL}`, PG_PASSWORD],
    ["Mongo URL", `connect to ${MONGO_URL} first`, MONGO_URL.split(":")[2]?.split("@")[0] ?? ""],
    ["Redis URL", `cache at ${REDIS_URL}`, REDIS_URL.split(":")[2]?.split("@")[0] ?? ""],
    ["ADO connection string", "Server=db;User Id=sa;Password=Pa55w0rd!x;", "Pa55w0rd!x"],
    ["generic key=", "api_key=abcd1234efgh5678", "abcd1234efgh5678"],
    ["generic token:", 'auth_token: "tok_live_7Hq2mZ"', "tok_live_7Hq2mZ"],
    ["generic password=", "PASSWORD='hunter2!'", "hunter2!"],
    ["generic JSON secret", '{"client_secret": "c0ffee-d00d-f00d"}', "c0ffee-d00d-f00d"],
    ["generic passwd", "passwd=qwerty99", "qwerty99"],
  ];

  for (const [what, text, secret] of planted) {
    it(`leaves no fragment of a planted secret: ${what}`, async () => {
      const out = await scrubSecrets(`Result of the fold.\n${text}\nDone.`);
      expect(fragments(out, secret)).toEqual([]);
      expect(out).toContain("[redacted]");
      expect(out).toMatch(/^Result of the fold\.\n/);
      expect(out).toMatch(/\nDone\.$/);
    });
  }

  it("redacts the whole body of PEM private keys, every kind, not only the header", async () => {
    for (const [kind, pem] of Object.entries(pemKeys())) {
      const out = await scrubSecrets(`The key (${kind}):\n${pem}\nand that was all.`);
      const leaked = pemBody(pem).flatMap((line) => fragments(out, line, 12));
      expect(leaked, kind).toEqual([]);
      expect(out, kind).not.toContain("PRIVATE KEY");
      expect(out, kind).toContain("and that was all.");
    }
  });

  it("redacts a PEM key inside a JSON string and one cut off before its footer", async () => {
    const pem = pemKeys().pkcs8;
    const json = JSON.stringify({ private_key: pem, project: "demo" });
    const out1 = await scrubSecrets(json);
    expect(pemBody(pem).flatMap((line) => fragments(out1, line, 12))).toEqual([]);
    expect(out1).toContain('"project":"demo"');
    const cut = pem.slice(0, pem.length - 60);
    const out2 = await scrubSecrets(`partial:\n${cut}`);
    expect(pemBody(cut).flatMap((line) => fragments(out2, line, 12))).toEqual([]);
  });

  it("redacts every occurrence of a found secret and all of several secrets at once", async () => {
    const text = `id ${AWS_ID} secret ${AWS_SECRET}\nagain: ${AWS_SECRET}\n${GITHUB} ${JWT}\n${PG_URL}`;
    const out = await scrubSecrets(text);
    for (const secret of [AWS_ID, AWS_SECRET, GITHUB, JWT, PG_PASSWORD])
      expect(fragments(out, secret)).toEqual([]);
    expect(out.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(6);
  });

  it("obeys no secretlint-disable comment in the text (it let every later token through)", async () => {
    for (const comment of [
      "// secretlint-disable",
      "<!-- secretlint-disable -->",
      "# secretlint-disable-next-line",
      "/* secretlint-disable @secretlint/secretlint-rule-github */",
    ]) {
      const text = `${comment}\ntoken ${GITHUB}\n${GITLAB} ${SLACK} // secretlint-disable-line`;
      const out = await scrubSecrets(text);
      for (const secret of [GITHUB, GITLAB, SLACK])
        expect(fragments(out, secret), comment).toEqual([]);
    }
  });

  it("passes clean text unchanged", async () => {
    const clean = [
      "The config loader lives in packages/core/src/model/session-config.ts (line 65).",
      "Commit 3fbbaf5c2d9e4a1b7f60c8e9d1a2b3c4d5e6f708 changed the fold runtime.",
      "Set max_tokens=4096 and token_count: 1234; the key insight is caching.",
      "The primary key: user_id; the next token: identifier; Secret: nothing.",
      "const apiKey = process.env.OPENAI_API_KEY;",
      'password: "$' + '{DB_PASSWORD}"',
      "See https://example.com/docs?page=2 and postgres://db.internal:5432/app.",
      "UUID 123e4567-e89b-12d3-a456-426614174000, base64 aGVsbG8gd29ybGQ=",
      "-----BEGIN PUBLIC KEY----- is fine to share.",
      "",
    ].join("\n");
    expect(await scrubSecrets(clean)).toBe(clean);
    expect(await findSecrets(clean)).toEqual([]);
    expect(await scrubSecrets("")).toBe("");
  });
});

describe("secretlint's profiler", () => {
  it("is not fed: no marks in Node's timeline, no entries kept (they grew with every scrub)", async () => {
    const marksBefore = performance.getEntriesByType("mark").length;
    for (let i = 0; i < 20; i++) {
      // "secret": the text goes through secretlint (no pre-check can rule it out)
      expect(secretlintMayFind(`line ${i}: nothing secret here`)).toBe(true);
      await scrubSecrets(`line ${i}: nothing secret here`);
      // the profiler's observer is told of marks a moment later
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    // each lint marked ~4 times per rule before (~60 marks a scrub, never cleared)
    expect(performance.getEntriesByType("mark").length - marksBefore).toBe(0);
    expect((await secretLintProfiler.getEntries()).length).toBe(0);
    expect((await secretLintProfiler.getMeasures()).length).toBe(0);
  });
});

describe("findSecrets with a byte order mark", () => {
  it("redacts what secretlint finds at the right place when the text starts with a BOM", async () => {
    const text = `\uFEFF${GITLAB} and ${SLACK}`;
    const out = await scrubSecrets(text);
    expect(fragments(out, GITLAB, 4)).toEqual([]);
    expect(fragments(out, SLACK, 4)).toEqual([]);
    expect(out).toBe("\uFEFF[redacted] and [redacted]");
  });
});

/** base64 of a JSON object ending in `fQ==` (a closing brace alone in its last group). */
function onePasswordBody(): string {
  let pad = "";
  const json = () => JSON.stringify({ email: "sa@example.test", k: `${alnum(100, 32)}${pad}` });
  while (Buffer.byteLength(json()) % 3 !== 1) pad += "x";
  return Buffer.from(json()).toString("base64");
}

describe("the secretlint pre-check (a clean text skips secretlint's pass)", () => {
  const config = {
    rules: recommendedRules
      .filter((rule) => rule.meta.id !== "@secretlint/secretlint-rule-filter-comments")
      .map((rule) => ({ id: rule.meta.id, rule })),
  };
  /** What secretlint alone reports in `text`, as scrub.ts runs it. */
  const secretlintFinds = async (text: string): Promise<string[]> => {
    const result = await lintSource({
      source: { filePath: "fold-return.txt", content: text, contentType: "text" },
      options: { config, maskSecrets: false, noPhysicFilePath: true },
    });
    return result.messages.map((m) => m.ruleId);
  };
  // one finding of every audited rule that reports on a text file (gcp reads .json/.p12 only)
  const findings: Array<[string, string]> = [
    ["aws", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX"],
    ["npm", `token npm_${alnum(36, 21)} here`],
    ["slack", `SLACK=${SLACK}`],
    ["slack", `posted to ${SLACK_HOOK}`],
    ["basicauth", `fetch https://deploy:${alnum(12, 22)}@example.com/x`],
    ["openai", `the key ${OPENAI_LEGACY} worked`],
    ["anthropic", `x-api-key: ${ANTHROPIC}`],
    ["groq", `key gsk_${alnum(52, 23)} here`],
    ["huggingface", `key hf_${alnum(34, 24).replace(/[0-9]/g, "q")} here`],
    ["linear", `key lin_api_${alnum(40, 25)} here`],
    ["notion", `key ntn_12345678901${alnum(35, 26)} here`],
    ["privatekey", pemKeys().pkcs1],
    ["sendgrid", `key SG.${alnum(22, 27)}.${alnum(43, 28)} here`],
    ["shopify", `key shpat_${alnum(32, 29)} here`],
    ["github", `export GH=${GITHUB}`],
    ["github", `token is ${GITHUB_FINE}.`],
    ["gitlab", `use ${GITLAB} for the API`],
    ["grafana", `key glc_${alnum(40, 30)} here`],
    ["grafana", `key glsa_${alnum(32, 31)}_0123abcd here`],
    ["1password", `key ops_${onePasswordBody()} here`],
    ["database-connection-string", `connect to ${MONGO_URL} first`],
    ["database-connection-string", `DATABASE_URL=${PG_URL}`],
    ["database-connection-string", `mysql://root:${alnum(12, 33)}@db.internal:3306/app`],
    ["hashicorp-vault", `token hvs.${alnum(95, 34)} here`],
    ["vercel", `token vcp_${alnum(30, 35)} here`],
    ["databricks", "token dapi0123456789abcdef0123456789abcdef here"],
    ["docker", `token dckr_pat_${alnum(27, 36)} here`],
    ["figma", `token figd_${alnum(45, 37)} here`],
  ];

  it("was derived from the rules the preset has now (an upgrade must be audited again)", () => {
    expect(config.rules.map((r) => r.id).sort()).toEqual([...AUDITED_SECRETLINT_RULES].sort());
  });

  for (const [rule, text] of findings) {
    it(`lets through to secretlint every text it finds something in: ${rule}`, async () => {
      const found = await secretlintFinds(`Result of the fold.\n${text}\nDone.`);
      expect(found).toContain(`@secretlint/secretlint-rule-${rule}`);
      expect(secretlintMayFind(`Result of the fold.\n${text}\nDone.`)).toBe(true);
      // the pre-check ignores case, so it is at least as wide as the rules' own patterns
      expect(secretlintMayFind(text.toUpperCase())).toBe(true);
      expect(secretlintMayFind(text.toLowerCase())).toBe(true);
    });
  }

  it("covers every rule that reports on a text", () => {
    const covered = new Set(findings.map(([rule]) => `@secretlint/secretlint-rule-${rule}`));
    const reporting = AUDITED_SECRETLINT_RULES.filter((id) => !id.endsWith("-gcp"));
    expect(reporting.filter((id) => !covered.has(id))).toEqual([]);
  });

  it("rules out ordinary prose and code, which then skip secretlint", async () => {
    const clean = [
      "m3: value3 and value7 are unused in f1.ts; the rest are used.",
      "The config loader lives in packages/core/src/model/session-config.ts; it parses the " +
        "session config with zod and fills the folding defaults (budget 8192, depth 3).",
      "Commit 3fbbaf5c2d9e4a1b7f60c8e9d1a2b3c4d5e6f708 changed the fold runtime.",
      "ok",
    ];
    for (const text of clean) {
      expect(secretlintMayFind(text), text).toBe(false);
      expect(await secretlintFinds(text), text).toEqual([]);
      expect(await scrubSecrets(text)).toBe(text);
    }
  });

  it("never skips a text secretlint finds something in, pieces of findings included", async () => {
    // every finding cut at a few places and put among prose: where secretlint still finds
    // something, the pre-check must have let the text through
    for (const [rule, text] of findings) {
      for (const cut of [0, 3, 5, 8, 12, Math.floor(text.length / 2)]) {
        for (const piece of [text.slice(cut), text.slice(0, text.length - cut)]) {
          const sample = `A note. ${piece} The end.`;
          if ((await secretlintFinds(sample)).length > 0) {
            expect(secretlintMayFind(sample), `${rule}: ${sample}`).toBe(true);
          }
        }
      }
    }
  });
});
