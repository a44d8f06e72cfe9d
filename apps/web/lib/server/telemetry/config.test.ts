import { describe, expect, it } from "vitest";
import { TelemetryConfigError, telemetryConfig } from "./config";

const ID = "instance-1";

function failure(env: Record<string, string>): TelemetryConfigError {
  try {
    telemetryConfig(env, ID);
  } catch (error) {
    if (error instanceof TelemetryConfigError) return error;
    throw error;
  }
  throw new Error("no error");
}

describe("telemetryConfig", () => {
  it("is off without an endpoint, and off when OTEL_SDK_DISABLED=true even with one", () => {
    expect(telemetryConfig({}, ID)).toEqual({ kind: "off", why: "no_endpoint" });
    // the other variables alone export nothing
    expect(
      telemetryConfig(
        {
          OTEL_SERVICE_NAME: "x",
          OTEL_EXPORTER_OTLP_HEADERS: "a=b",
          OTEL_EXPORTER_OTLP_ENDPOINT: " ",
        },
        ID,
      ),
    ).toEqual({ kind: "off", why: "no_endpoint" });
    expect(
      telemetryConfig(
        { OTEL_SDK_DISABLED: "TRUE", OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" },
        ID,
      ),
    ).toEqual({ kind: "off", why: "disabled" });
    // any other value leaves the SDK on (the specification: only "true" disables)
    expect(
      telemetryConfig(
        { OTEL_SDK_DISABLED: "1", OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" },
        ID,
      ).kind,
    ).toBe("export");
  });

  it("the general endpoint gets each signal's path; defaults: http/protobuf, service arbor", () => {
    expect(telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" }, ID)).toEqual({
      kind: "export",
      traces: { url: "http://localhost:4318/v1/traces", protocol: "http/protobuf", headers: {} },
      metrics: { url: "http://localhost:4318/v1/metrics", protocol: "http/protobuf", headers: {} },
      resource: { "service.name": "arbor", "service.instance.id": ID },
      metricIntervalMs: 60_000,
    });
    // a base path is kept (Langfuse's /api/public/otel, Phoenix behind a proxy)
    const langfuse = telemetryConfig(
      { OTEL_EXPORTER_OTLP_ENDPOINT: "https://cloud.langfuse.com/api/public/otel/" },
      ID,
    );
    expect(langfuse.kind === "export" && langfuse.traces?.url).toBe(
      "https://cloud.langfuse.com/api/public/otel/v1/traces",
    );
  });

  it("a signal's own endpoint is used as given and alone exports that signal only", () => {
    const config = telemetryConfig(
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://jaeger:4318/v1/traces",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      },
      ID,
    );
    expect(config).toMatchObject({
      kind: "export",
      traces: { url: "http://jaeger:4318/v1/traces", protocol: "http/json" },
    });
    expect(config.kind === "export" && config.metrics).toBeUndefined();
    const both = telemetryConfig(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://metrics:9090/api/v1/otlp/v1/metrics",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      },
      ID,
    );
    expect(both).toMatchObject({
      traces: { url: "http://collector:4318/v1/traces", protocol: "http/json" },
      metrics: { url: "http://metrics:9090/api/v1/otlp/v1/metrics", protocol: "http/json" },
    });
  });

  it("headers: the general list under each signal's own, percent-decoded", () => {
    const config = telemetryConfig(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20cGs6c2s=, x-team = one ,",
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: "x-team=two",
      },
      ID,
    );
    expect(config).toMatchObject({
      traces: { headers: { Authorization: "Basic cGs6c2s=", "x-team": "one" } },
      metrics: { headers: { Authorization: "Basic cGs6c2s=", "x-team": "two" } },
    });
  });

  it("resource: OTEL_RESOURCE_ATTRIBUTES over the defaults, OTEL_SERVICE_NAME over both", () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318",
      OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs,deployment.environment.name=prod%20eu",
    };
    expect(telemetryConfig(env, ID)).toMatchObject({
      resource: {
        "service.name": "from-attrs",
        "service.instance.id": ID,
        "deployment.environment.name": "prod eu",
      },
    });
    expect(telemetryConfig({ ...env, OTEL_SERVICE_NAME: "arbor-eu" }, ID)).toMatchObject({
      resource: { "service.name": "arbor-eu" },
    });
    // each process is an instance of its own (several instances, one service)
    const a = telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x" });
    const b = telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x" });
    expect(a.kind === "export" && a.resource["service.instance.id"]).not.toBe(
      b.kind === "export" && b.resource["service.instance.id"],
    );
  });

  it("an unusable value is an error naming the variable, never a silent default", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" };
    expect(failure({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }).message).toMatch(
      /^OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported: use http\/protobuf .* or http\/json/,
    );
    expect(failure({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml" }).variable).toBe(
      "OTEL_EXPORTER_OTLP_PROTOCOL",
    );
    expect(failure({ ...endpoint, OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "json" }).variable).toBe(
      "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
    );
    expect(failure({ OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" }).message).toMatch(
      /^OTEL_EXPORTER_OTLP_ENDPOINT: OTLP\/HTTP needs an http:\/\/ or https:\/\/ URL/,
    );
    expect(failure({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "not a url" }).variable).toBe(
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    );
    // a malformed header list names the entry, never its value (a credential)
    const headers = failure({
      ...endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20ok,Bearer sk-secret-value",
    });
    expect(headers.message).toBe(
      "OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not name=value (a comma-separated list, values percent-encoded)",
    );
    expect(failure({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_HEADERS: "a=%zz" }).message).toBe(
      "OTEL_EXPORTER_OTLP_TRACES_HEADERS: entry 1 has a malformed %-escape",
    );
    expect(failure({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: "=x" }).variable).toBe(
      "OTEL_RESOURCE_ATTRIBUTES",
    );
    expect(failure({ ...endpoint, OTEL_METRIC_EXPORT_INTERVAL: "soon" }).variable).toBe(
      "OTEL_METRIC_EXPORT_INTERVAL",
    );
    // nothing is checked while the export is off: the server starts as before
    expect(telemetryConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, ID).kind).toBe("off");
  });
});
