import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CodeWords, codeFiles, namesIn, readRepoFile, userDocs } from "./env-names.js";

// The README tells the truth (issue #29, finding 7): every environment variable the README and
// docs/*.md name is read somewhere in the code (apps/, packages/, scripts/; tests left out), or
// is read by a library Arbor runs with (listed below, with the reader), or is an example of the
// user's own variable (listed below, with where). A doc naming a variable nothing reads fails.

/**
 * OpenTelemetry's variables that its SDK reads itself (the OpenTelemetry specification's
 * "Environment Variable Specification" and the OTLP exporter's): Arbor's code need not read
 * them for the docs to name them truthfully.
 */
const OTEL_SDK_READS = new Set([
  "OTEL_SDK_DISABLED",
  "OTEL_SERVICE_NAME",
  "OTEL_RESOURCE_ATTRIBUTES",
  "OTEL_LOG_LEVEL",
  "OTEL_PROPAGATORS",
  "OTEL_TRACES_SAMPLER",
  "OTEL_TRACES_SAMPLER_ARG",
  "OTEL_TRACES_EXPORTER",
  "OTEL_METRICS_EXPORTER",
  "OTEL_LOGS_EXPORTER",
  // docs/observability.md names the batch settings as a group, `OTEL_BSP_*`
  "OTEL_BSP_",
  "OTEL_BSP_SCHEDULE_DELAY",
  "OTEL_BSP_EXPORT_TIMEOUT",
  "OTEL_BSP_MAX_QUEUE_SIZE",
  "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
  "OTEL_BLRP_SCHEDULE_DELAY",
  "OTEL_BLRP_EXPORT_TIMEOUT",
  "OTEL_BLRP_MAX_QUEUE_SIZE",
  "OTEL_BLRP_MAX_EXPORT_BATCH_SIZE",
  "OTEL_METRIC_EXPORT_INTERVAL",
  "OTEL_METRIC_EXPORT_TIMEOUT",
  "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
  "OTEL_ATTRIBUTE_COUNT_LIMIT",
  "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT",
  "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT",
  "OTEL_SPAN_EVENT_COUNT_LIMIT",
  "OTEL_SPAN_LINK_COUNT_LIMIT",
  "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT",
  "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT",
  "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
  ...["", "TRACES_", "METRICS_", "LOGS_"].flatMap((signal) =>
    [
      "ENDPOINT",
      "HEADERS",
      "TIMEOUT",
      "PROTOCOL",
      "COMPRESSION",
      "CERTIFICATE",
      "CLIENT_KEY",
      "CLIENT_CERTIFICATE",
      "INSECURE",
    ].map((setting) => `OTEL_EXPORTER_OTLP_${signal}${setting}`),
  ),
]);

/** Names the docs give as examples of a user's own variables, not Arbor's. */
const EXAMPLES: Readonly<Record<string, string>> = {
  DOCS_TOKEN: "docs/mcp.md: an MCP server's own credential in an example config",
  TRACKER_TOKEN: "docs/mcp.md: an MCP server's own credential in an example config",
  EXAMPLE_TOKEN: "docs/openapi.md: a spec's credential variable in an example",
  PETSTORE_KEY: "docs/openapi.md: a spec's credential variable in an example",
  STRIPE_KEY: "docs/openapi.md: a spec's credential variable in an example",
  AUTH: "docs/observability.md: a shell variable that builds Langfuse's Basic credential",
  PHOENIX_API_KEY: "docs/observability.md: Arize Phoenix's own API key in an example",
};

describe("the environment variables the docs name", () => {
  const code = new CodeWords(codeFiles());

  it("reads the real code and docs", () => {
    expect(code.fileCount).toBeGreaterThan(300);
    expect(userDocs()).toContain("README.md");
    expect(userDocs()).toContain("docs/security.md");
    expect(code.has("ARBOR_DATA_DIR")).toBe(true);
  });

  it("counts a name the code reads, never one only a comment holds", () => {
    const file = join(mkdtempSync(join(tmpdir(), "arbor-env-names-")), "config.ts");
    writeFileSync(
      file,
      [
        "// ARBOR_IN_A_COMMENT is documented here and read nowhere",
        "/* ARBOR_IN_A_BLOCK_COMMENT */",
        'const url = env.ARBOR_READ_DIRECTLY ?? get(env, "ARBOR_READ_BY_NAME");',
        // a template literal with a substitution: `set ${prefix}ARBOR_IN_A_TEMPLATE=1`
        "const line = `set $" + "{prefix}ARBOR_IN_A_TEMPLATE=1`;",
      ].join("\n"),
    );
    const words = new CodeWords([file]);
    expect(words.has("ARBOR_READ_DIRECTLY")).toBe(true);
    expect(words.has("ARBOR_READ_BY_NAME")).toBe(true);
    expect(words.has("ARBOR_IN_A_TEMPLATE")).toBe(true);
    expect(words.has("ARBOR_READ_")).toBe(true);
    expect(words.has("ARBOR_IN_A_COMMENT")).toBe(false);
    expect(words.has("ARBOR_IN_A_BLOCK_COMMENT")).toBe(false);
  });

  it("are each read by the code, by the OpenTelemetry SDK, or are examples", () => {
    const unread: string[] = [];
    for (const doc of userDocs()) {
      for (const name of namesIn(readRepoFile(doc))) {
        if (OTEL_SDK_READS.has(name) || EXAMPLES[name] !== undefined) continue;
        if (!code.has(name)) unread.push(`${doc}: ${name}`);
      }
    }
    expect(unread).toEqual([]);
  });

  it("keep no example a doc no longer gives", () => {
    const docs = userDocs().map(readRepoFile).join("\n");
    for (const name of Object.keys(EXAMPLES)) expect(docs, name).toContain(name);
  });
});

describe("namesIn", () => {
  it("finds snake-case names, prefixes and assigned single words", () => {
    expect(
      namesIn(
        "set `ARBOR_TOKEN`, or SSO through `ARBOR_OIDC_*`: HOST=0.0.0.0 PORT=3001 npm start; a GET stays",
      ),
    ).toEqual(["ARBOR_OIDC_", "ARBOR_TOKEN", "HOST", "PORT"]);
  });
});
