import { createRequire } from "node:module";
import {
  isAbiMismatch,
  NativePartError,
  nativeLoadCause,
  rebuildCommand,
} from "@arbor/core/storage";

// better-sqlite3 is a native addon built for one Node.js ABI. Loaded through Prisma's adapter
// inside the WebAssembly schema engine, a build for another Node.js failed as "External error
// id#0" on every request (issue #29). It is loaded here first, where the error still says what
// it is, and turned into a NativePartError with the command that fixes it.

/** The fix for a better-sqlite3 that does not load, in the person's words. */
export function sqliteDriverFix(error: unknown): string {
  return isAbiMismatch(error)
    ? `rebuild it for this Node.js: run \`${rebuildCommand("better-sqlite3")}\` at the repository's root with the Node.js that starts Arbor, or start Arbor with the Node.js it was built for`
    : "reinstall it (`pnpm install --force` at the repository's root; it compiles from source when no prebuilt binary fits, which needs python3 and a C++ compiler), or set DATABASE_URL to a PostgreSQL database";
}

/**
 * Loads better-sqlite3 and runs one statement on an in-memory database. Throws a
 * NativePartError (part, cause, fix) when it cannot. `nativeBinding`: the addon file to load
 * instead of the package's own build (tests).
 */
export function checkSqliteDriver(options: { nativeBinding?: string } = {}): void {
  try {
    const Driver = createRequire(import.meta.url)(
      "better-sqlite3",
    ) as typeof import("better-sqlite3");
    const db = new Driver(
      ":memory:",
      options.nativeBinding === undefined ? {} : { nativeBinding: options.nativeBinding },
    );
    try {
      db.prepare("SELECT 1").get();
    } finally {
      db.close();
    }
  } catch (error) {
    throw new NativePartError("better-sqlite3", nativeLoadCause(error), sqliteDriverFix(error));
  }
}
