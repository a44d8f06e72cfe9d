import { describe, expect, it } from "vitest";
import {
  isNeverToolEnv,
  TOOL_ENV_NEVER,
  toolEnvironment,
  toolEnvNames,
  withoutVariables,
} from "./tool-env.js";

const server = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/me",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  LC_TIME: "en_GB.UTF-8",
  TERM: "xterm",
  USER: "me",
  ANTHROPIC_API_KEY: "sk-ant-secret",
  ANTHROPIC_AUTH_TOKEN: "sk-ant-oat01-secret",
  OPENAI_API_KEY: "sk-openai",
  ARBOR_TOKEN: "install-token",
  ARBOR_ADMIN_TOKEN: "admin-token",
  DATABASE_URL: "postgres://u:pw@db/arbor",
  GITHUB_TOKEN: "ghp_x",
  NODE_OPTIONS: "--inspect",
  WORKSPACE_DIR: "/elsewhere",
};

describe("toolEnvironment", () => {
  it("keeps the allow-list and LC_*, sets WORKSPACE_DIR, drops everything else", () => {
    expect(toolEnvironment({ env: server, workspaceRoot: "/ws" })).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/me",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      LC_TIME: "en_GB.UTF-8",
      TERM: "xterm",
      USER: "me",
      WORKSPACE_DIR: "/ws",
    });
  });

  it("adds the names listed in ARBOR_TOOL_ENV, never Arbor's credentials or a provider key", () => {
    const env = {
      ...server,
      ARBOR_TOOL_ENV:
        " GITHUB_TOKEN , NODE_OPTIONS,ANTHROPIC_API_KEY,ANTHROPIC_AUTH_TOKEN,ARBOR_TOKEN,ARBOR_ADMIN_TOKEN,DATABASE_URL,OPENAI_API_KEY,UNSET_NAME,,",
    };
    const out = toolEnvironment({ env, workspaceRoot: "/ws" });
    expect(out.GITHUB_TOKEN).toBe("ghp_x");
    expect(out.NODE_OPTIONS).toBe("--inspect");
    for (const name of TOOL_ENV_NEVER) expect(out[name], name).toBeUndefined();
    expect("UNSET_NAME" in out).toBe(false);
    expect(toolEnvNames({ env, workspaceRoot: "/ws" })).toEqual([
      "GITHUB_TOKEN",
      "HOME",
      "LANG",
      "LC_ALL",
      "LC_TIME",
      "NODE_OPTIONS",
      "PATH",
      "TERM",
      "USER",
      "WORKSPACE_DIR",
    ]);
  });
});

describe("the OpenTelemetry export's variables (issue #28)", () => {
  const otel = {
    ...server,
    OTEL_EXPORTER_OTLP_ENDPOINT: "https://cloud.langfuse.com/api/public/otel",
    OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20cGstbGYtc2VjcmV0",
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-honeycomb-team=hc-secret-key",
    OTEL_SERVICE_NAME: "arbor",
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=prod",
  };

  it("no tool process gets any OTEL_* variable, not even named in ARBOR_TOOL_ENV", () => {
    const names = Object.keys(otel).filter((name) => name.startsWith("OTEL_"));
    const env = { ...otel, ARBOR_TOOL_ENV: [...names, "GITHUB_TOKEN", "OTEL_UNSET"].join(",") };
    const out = toolEnvironment({ env, workspaceRoot: "/ws" });
    expect(Object.keys(out).filter((name) => name.startsWith("OTEL_"))).toEqual([]);
    expect(out.GITHUB_TOKEN).toBe("ghp_x");
    for (const name of names) expect(isNeverToolEnv(name), name).toBe(true);
    expect(isNeverToolEnv("GITHUB_TOKEN")).toBe(false);
    // a name that merely contains the prefix is not one of them
    expect(isNeverToolEnv("MY_OTEL_SETTING")).toBe(false);
  });
});

describe("withoutVariables", () => {
  it("takes named credentials out, so ARBOR_TOOL_ENV cannot pass them to tool processes", () => {
    const env = {
      ...server,
      PETSTORE_AUTH: "p-secret",
      ARBOR_TOOL_ENV: "PETSTORE_AUTH,GITHUB_TOKEN",
    };
    expect(toolEnvironment({ env, workspaceRoot: "/ws" }).PETSTORE_AUTH).toBe("p-secret");
    const scrubbed = withoutVariables(env, ["PETSTORE_AUTH"]);
    const out = toolEnvironment({ env: scrubbed, workspaceRoot: "/ws" });
    expect(out.PETSTORE_AUTH).toBeUndefined();
    expect(out.GITHUB_TOKEN).toBe("ghp_x");
    expect(env.PETSTORE_AUTH).toBe("p-secret");
  });
});
