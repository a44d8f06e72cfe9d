import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRecordingContext } from "../../test/support/tool-test-context.js";
import { withRedactedOutput } from "./redacting-tool.js";
import { otlpHeaderSecrets, redact, redactValue, secretsFromEnv } from "./secrets.js";
import { defineTool, ToolError, type ToolResult } from "./tool.js";

describe("secretsFromEnv / redact", () => {
  it("finds secret-named values and URL passwords, longest first; ignores short values", () => {
    const secrets = secretsFromEnv(
      {
        ANTHROPIC_API_KEY: "sk-ant-0123456789",
        ANTHROPIC_AUTH_TOKEN: "sk-ant-oat01-abcdefgh",
        ARBOR_TOKEN: "tok-abcdef",
        DATABASE_URL: "postgres://arbor:p%40ssw0rd@db:5432/arbor",
        PASSWORD: "abc",
        PATH: "/usr/bin",
        GOOGLE_APPLICATION_CREDENTIALS_FILE: "/etc/creds.json",
      },
      ["from-a-file-123"],
    );
    expect(secrets).toEqual([
      "sk-ant-oat01-abcdefgh",
      "sk-ant-0123456789",
      "from-a-file-123",
      "tok-abcdef",
      "p@ssw0rd",
    ]);
    expect(redact("key sk-ant-0123456789 and tok-abcdef, pw p@ssw0rd", secrets)).toBe(
      "key [redacted] and [redacted], pw [redacted]",
    );
  });

  it("the OTLP header lists' credentials are secrets: raw, decoded and after the auth scheme", () => {
    expect(
      otlpHeaderSecrets("Authorization=Basic%20cGstbGYtMTIz, x-api-key = k-123456 ,bad"),
    ).toEqual([
      "Basic%20cGstbGYtMTIz",
      "Basic cGstbGYtMTIz",
      "cGstbGYtMTIz",
      "k-123456",
      "k-123456",
    ]);
    const secrets = secretsFromEnv({
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20cGstbGYtMTIz",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-honeycomb-team=hc-0123456789",
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://cloud.langfuse.com/api/public/otel",
    });
    expect(secrets).toContain("cGstbGYtMTIz");
    expect(secrets).toContain("hc-0123456789");
    expect(secrets).not.toContain("https://cloud.langfuse.com/api/public/otel");
    expect(redact("auth cGstbGYtMTIz team hc-0123456789", secrets)).toBe(
      "auth [redacted] team [redacted]",
    );
  });

  it("redacts strings anywhere in plain data, keys included", () => {
    const secrets = ["s3cr3t-value"];
    expect(
      redactValue(
        { a: ["x s3cr3t-value"], "s3cr3t-value": 1, n: 2, nested: { b: "s3cr3t-value" } },
        secrets,
      ),
    ).toEqual({ a: ["x [redacted]"], "[redacted]": 1, n: 2, nested: { b: "[redacted]" } });
  });
});

describe("withRedactedOutput", () => {
  const secret = "sk-live-abcdefgh";
  const leaky = defineTool({
    name: "leaky",
    label: "Leaky",
    description: "prints what it is given",
    parameters: z.object({ text: z.string(), fail: z.boolean().optional() }),
    async execute(params, ctx): Promise<ToolResult<{ echoed: string }>> {
      ctx.onUpdate({ content: [{ type: "text", text: `partial ${params.text}` }] });
      ctx.onProgress(`progress ${params.text}`);
      if (params.fail) throw ToolError.failed(`failed with ${params.text}`);
      return {
        content: [{ type: "text", text: `result ${params.text}` }],
        details: { echoed: params.text },
      };
    },
  });

  it("redacts the result, its details, streamed updates, progress and errors", async () => {
    const tool = withRedactedOutput(leaky, () => [secret]);
    expect(tool.name).toBe("leaky");
    expect(tool.parameters).toBe(leaky.parameters);
    const ctx = createRecordingContext("leaky");
    const result = await tool.execute({ text: `=${secret}=` }, ctx);
    expect(result).toEqual({
      content: [{ type: "text", text: "result =[redacted]=" }],
      details: { echoed: "=[redacted]=" },
    });
    expect(ctx.updates).toEqual([{ content: [{ type: "text", text: "partial =[redacted]=" }] }]);
    expect(ctx.progress).toEqual(["progress =[redacted]="]);
    const error = await tool.execute({ text: secret, fail: true }, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ kind: "failed", message: "failed with [redacted]" });
  });
});
