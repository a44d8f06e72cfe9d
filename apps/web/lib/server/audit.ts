import type { AuditAction, Logger } from "@arbor/core";
import type { AuditLog, Database } from "@arbor/db";
import type { Actor } from "./people/actor";

// The one way the web app writes the audit log (docs/audit.md): audit(runtime, actor, action,
// target, detail). Route handlers call it after the person's action took effect; the runtime
// calls it with actor null for what the system did (an MCP server's config loaded).
//
// Contract: audit() never throws and never undoes the action it records. A row that cannot be
// written (the database refused, is gone, …) is logged as an error through the runtime's logger,
// with the action, target and actor, and the request is answered as if it had been written: the
// person's action already happened and must not look failed. Operators watch for
// "audit write failed" in the log.

export { AUDIT_ACTIONS, type AuditAction } from "@arbor/core";

/** What audit() needs of the runtime: its database and its logger. */
export interface AuditRuntime {
  readonly database: Database;
  readonly logger: Logger;
}

/**
 * Who acted: a person, an anonymous caller known only by address (a failed sign-in), or null for
 * the system (no person, no address).
 */
export type AuditActor = Actor | { anonymous: true; address: string } | null;

const logs = new WeakMap<Database, AuditLog>();

/**
 * The audit log of a database (one per database, kept as long as it is). @arbor/db is imported
 * at run time, not bundled, as store.ts does (Prisma breaks inside a bundle).
 */
export async function auditLogOf(database: Database): Promise<AuditLog> {
  let log = logs.get(database);
  if (log === undefined) {
    const { AuditLog } = await import(/* turbopackIgnore: true */ "@arbor/db");
    log = logs.get(database) ?? new AuditLog(database);
    logs.set(database, log);
  }
  return log;
}

/**
 * Appends one audit row: who (`actor`: a person, `{ anonymous: true, address }`, or null for the
 * system), what
 * (`action`), to what (`target`, e.g. `session:<id>`), with `detail`. Never throws: a failed write
 * is logged (see above). Resolves once the row is stored or the failure logged.
 */
export async function audit(
  runtime: AuditRuntime,
  actor: AuditActor,
  action: AuditAction,
  target: string,
  detail?: Record<string, unknown>,
): Promise<void> {
  const person = actor !== null && "id" in actor ? actor : null;
  try {
    const log = await auditLogOf(runtime.database);
    await log.append({
      actor: person === null ? null : { id: person.id, name: person.name },
      action,
      target,
      address: actor?.address ?? null,
      ...(detail !== undefined ? { detail } : {}),
    });
  } catch (error) {
    runtime.logger.error("audit write failed", {
      action,
      target,
      actor: person?.id ?? null,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** A workspace definition (an MCP server, an OpenAPI spec) as an audit target. */
export function definitionTarget(key: { file: string; name: string }): string {
  return `definition:${key.file}#${key.name}`;
}
