// @arbor/db: the Prisma store for Arbor's sessions, branches, messages, events and loop records.
// An SQLite file by default, PostgreSQL when DATABASE_URL says so. See README.md.
export { AppMcpServerTable } from "./app-mcp-servers.js";
export {
  type AuditAppend,
  type AuditListQuery,
  AuditLog,
  type AuditLogOptions,
  type AuditPage,
  auditRowHash,
  canonicalJson,
  GENESIS_HASH,
} from "./audit-log.js";
export { type CreatedStore, type CreateStoreOptions, createStore } from "./create-store.js";
export type { Database, DatabaseOptions, SqliteSynchronous } from "./database.js";
export { openDatabase } from "./database.js";
export {
  type DatabaseTarget,
  DEFAULT_SQLITE_FILE,
  defaultDataDir,
  parseDatabaseUrl,
  resolveDatabase,
} from "./database-url.js";
export { ExtensionSwitchTable } from "./extension-switches.js";
export { FoldMemoryTable } from "./fold-memories.js";
export { PrismaMcpSessionStore } from "./mcp-sessions.js";
export { type ApplyResult, applyMigrations } from "./migrate.js";
export {
  type ApiTokenRow,
  type InvitationRow,
  type LinkShareRow,
  PeopleStore,
  type Person,
  type PersonRole,
  type SessionAccessRow,
  type SessionRelation,
} from "./people-store.js";
export { PgCoordinator, type PgCoordinatorOptions } from "./pg-coordinator.js";
export {
  PrismaSessionStore,
  type PrismaSessionStoreOptions,
  type StoreLogger,
} from "./prisma-session-store.js";
export {
  type KeptKeyRecord,
  type OpenedKey,
  ProviderKeyTable,
} from "./provider-keys.js";
export {
  KEY_FILE_NAME,
  KEY_VARIABLE,
  SecretBox,
  SecretBoxError,
  secretBoxOf,
} from "./secret-box.js";
export { checkSqliteDriver, sqliteDriverFix } from "./sqlite-driver.js";
export { type BudgetView, monthOf, TokenBudgets } from "./token-budgets.js";
