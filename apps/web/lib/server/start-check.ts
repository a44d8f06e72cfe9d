import { createRequire } from "node:module";
import { join } from "node:path";
import {
  checkCodebaseParts,
  isNativePartError,
  NativePartError,
  nativeLoadCause,
  reinstallFix,
} from "@arbor/core";

// A start that cannot work says so (issue #29). With better-sqlite3 built for another Node.js,
// `npm start` printed "Arbor is running at …" and then answered every request with 500, the log
// saying "External error id#0". Now the parts that are not JavaScript are loaded before the
// server says it runs: the store's driver (better-sqlite3, by @arbor/db's createStore when it
// opens the store), the password hasher (@node-rs/argon2), and the codebase index's watcher and
// tree-sitter runtime. A part that does not load, or a start the configuration refuses
// (StartRefused), ends the process with its cause and its fix (instrumentation.ts).

/** @node-rs/argon2 (people's passwords): loads its prebuilt addon and hashes once, cheaply. */
export async function checkPasswordHasher(): Promise<void> {
  try {
    const { hash } = await import("@node-rs/argon2");
    await hash("arbor start check", { memoryCost: 1024, timeCost: 1, parallelism: 1 });
  } catch (error) {
    throw new NativePartError(
      "@node-rs/argon2",
      nativeLoadCause(error),
      reinstallFix("@node-rs/argon2", error),
    );
  }
}

/** Every native part the server loads besides the store's driver. */
export async function checkNativeParts(): Promise<void> {
  await checkPasswordHasher();
  // resolved from core's build, as the codebase index's worker finds them (core is bundled into
  // the app's chunks, which do not sit beside core's dependencies)
  const coreEntry = createRequire(join(process.cwd(), "index.js")).resolve(
    ["@arbor", "core", "codebase-worker"].join("/"),
  );
  await checkCodebaseParts({ resolveFrom: coreEntry });
}

/**
 * What to print for a start that cannot work, or undefined when the error may pass (the runtime
 * is tried again by the next request: a database that is not up yet).
 */
export function cannotStart(error: unknown): string | undefined {
  if (isNativePartError(error)) {
    return `Arbor cannot start: ${error.part} does not load: ${error.reason}.\nFix: ${error.fix}.`;
  }
  if (error instanceof Error && error.name === "StartRefused") {
    return `Arbor cannot start: ${error.message}.`;
  }
  return undefined;
}
