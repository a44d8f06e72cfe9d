import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import prismaInternals from "@prisma/internals";
import type { DatabaseTarget } from "./database-url.js";
import type { ApplyResult } from "./migrate.js";
import { committedMigrationNames } from "./migration-status.js";
import { migrationsDir, type Provider } from "./prisma-schema.js";

// The WebAssembly schema engine from @prisma/migrate, driven through a driver adapter: the CLI's
// native engine cannot be downloaded here, the WebAssembly one needs nothing from the network.

const require = createRequire(import.meta.url);
// @prisma/internals is CommonJS whose named exports Node cannot detect: take them off the default.
const loader: { loadSchemaEngine: typeof prismaInternals.wasmSchemaEngineLoader.loadSchemaEngine } =
  prismaInternals.wasmSchemaEngineLoader;
/** the raw engine (@prisma/internals names it wasm.SchemaEngineWasm) */
export type SchemaEngine = prismaInternals.wasm.SchemaEngineWasm;

/**
 * @prisma/internals loads `schema_engine_bg.wasm` from its own `build/` folder, which its npm
 * package does not ship; @prisma/schema-engine-wasm (same engine version, its dependency) does.
 * Copy it there once. Idempotent and cheap (one existsSync) on every later call.
 */
export function ensureSchemaEngineWasm(): void {
  const migrateDir = dirname(require.resolve("@prisma/migrate/package.json"));
  const fromMigrate = createRequire(join(migrateDir, "package.json"));
  const internalsDir = dirname(fromMigrate.resolve("@prisma/internals/package.json"));
  const target = join(internalsDir, "build", "schema_engine_bg.wasm");
  if (existsSync(target)) return;
  const fromInternals = createRequire(join(internalsDir, "package.json"));
  // its exports map hides package.json; the main entry sits next to the .wasm
  const engineDir = dirname(fromInternals.resolve("@prisma/schema-engine-wasm"));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(engineDir, "schema_engine_bg.wasm"), target);
}

export function adapterFactory(target: DatabaseTarget): SqlMigrationAwareDriverAdapterFactory {
  if (target.provider === "postgresql") return new PrismaPg({ connectionString: target.url });
  if (target.file !== undefined) mkdirSync(dirname(target.file), { recursive: true });
  return new PrismaBetterSqlite3({ url: target.url });
}

/**
 * Runs `run` with the raw WebAssembly engine connected to `target`. The raw engine rather than
 * @prisma/migrate's SchemaEngineWasm wrapper: the wrapper prints `diff` output to stdout instead of
 * returning it, and db:migrate:create needs the script.
 */
export async function withSchemaEngine<T>(
  target: DatabaseTarget,
  run: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  ensureSchemaEngineWasm();
  // Freeing the engine does not close the connections it opened (a pg pool would keep the
  // process and the database busy), so the factory records them and they are disposed here.
  const inner = adapterFactory(target);
  const connections: SqlDriverAdapter[] = [];
  const tracked: SqlMigrationAwareDriverAdapterFactory = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => {
      const adapter = await inner.connect();
      connections.push(adapter);
      return adapter;
    },
    connectToShadowDb: async () => {
      const adapter = await inner.connectToShadowDb();
      connections.push(adapter);
      return adapter;
    },
  };
  const engine = await loader.loadSchemaEngine(
    { datamodels: undefined },
    () => {},
    bindMigrationAwareSqlAdapterFactory(tracked),
  );
  try {
    return await run(engine);
  } finally {
    engine.free();
    for (const connection of connections) await connection.dispose();
  }
}

export const NO_FILTERS = { externalTables: [], externalEnums: [] };

/** Every committed migration not yet in `target`, applied by the engine (migrate deploy's way). */
export async function applyMigrationsWithEngine(target: DatabaseTarget): Promise<ApplyResult> {
  const { appliedMigrationNames } = await withSchemaEngine(target, (engine) =>
    engine.applyMigrations({
      migrationsList: loadMigrationList(target.provider),
      filters: NO_FILTERS,
    }),
  );
  return { provider: target.provider, applied: appliedMigrationNames };
}

/** The committed migrations of one provider, as the engine wants them (migrate deploy's list). */
export function loadMigrationList(provider: Provider) {
  const baseDir = migrationsDir(provider);
  const lockPath = join(baseDir, "migration_lock.toml");
  const directories = committedMigrationNames(provider);
  return {
    baseDir,
    lockfile: {
      path: "migration_lock.toml",
      content: existsSync(lockPath) ? readFileSync(lockPath, "utf8") : null,
    },
    shadowDbInitScript: "",
    migrationDirectories: directories.map((name) => {
      const file = join(baseDir, name, "migration.sql");
      return {
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: existsSync(file)
            ? { tag: "ok" as const, value: readFileSync(file, "utf8") }
            : { tag: "error" as const, value: `${file} is missing` },
        },
      };
    }),
  };
}
