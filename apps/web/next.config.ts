import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Types are checked by the `typecheck` script (`next typegen && tsc --noEmit`), which `npm test`
  // runs; `next build` skips its own pass of the same check, a minute of `npm start` on a 2-core
  // machine (docs/decisions/0079).
  typescript: { ignoreBuildErrors: true },
  // Native and engine-loading packages stay outside the server bundle. The app reaches them only
  // through @arbor/db, which lib/server/store.ts imports at run time; listed so that a future
  // static import cannot bundle them by accident.
  serverExternalPackages: [
    "@prisma/client",
    "@prisma/internals",
    "@prisma/migrate",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "better-sqlite3",
    "pg",
    // a native watcher (the codebase index, mcp_servers.json), and a WebAssembly runtime that loads its .wasm files
    // from its own package directory
    "@parcel/watcher",
    "@vscode/tree-sitter-wasm",
    // the OpenTelemetry SDK (lib/server/telemetry/sdk.ts): loaded at run time, and only when an
    // endpoint is set; @opentelemetry/api stays bundled with core, which registers nothing
    "@opentelemetry/context-async-hooks",
    "@opentelemetry/core",
    "@opentelemetry/exporter-metrics-otlp-http",
    "@opentelemetry/exporter-metrics-otlp-proto",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/exporter-trace-otlp-proto",
    "@opentelemetry/resources",
    "@opentelemetry/sdk-metrics",
    "@opentelemetry/sdk-trace-base",
  ],
};

export default config;
