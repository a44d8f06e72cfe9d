import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
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
    // the codebase index: a native watcher, and a WebAssembly runtime that loads its .wasm files
    // from its own package directory
    "@parcel/watcher",
    "@vscode/tree-sitter-wasm",
  ],
};

export default config;
