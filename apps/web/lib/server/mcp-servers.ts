import {
  AppMcpServers,
  importAppMcpFile,
  type Logger,
  type McpManager,
  type McpServerView,
} from "@arbor/core";
import type { Database } from "@arbor/db";

// The MCP servers an admin adds in the settings (issue #27, docs/decisions/0056): rows of the
// database every instance reads, so a server added through one instance is offered by all.

/**
 * Every MCP server as the API shows it; those added in the settings (kept in the database) are
 * marked `managed`: only they can be turned on or off and removed there, and they name who added
 * them (`added_by`, from the rows).
 */
export async function serverViews(arbor: {
  readonly mcp: McpManager;
  readonly appMcp: AppMcpServers;
}): Promise<McpServerView[]> {
  const addedBy = new Map(
    (await arbor.appMcp.records()).flatMap((record) =>
      record.addedBy !== null ? [[record.name, record.addedBy] as const] : [],
    ),
  );
  return arbor.mcp.servers().map((server) => {
    if (server.file !== arbor.appMcp.file) return server;
    const by = addedBy.get(server.name);
    return {
      ...server,
      managed: true,
      ...(by !== undefined ? { added_by: { id: by.id, name: by.name } } : {}),
    };
  });
}

/**
 * The servers added in the settings, over the database's table, with an older version's
 * `<data dir>/mcp_servers.json` brought in first (a file that does not parse stays where it is,
 * and the start goes on). `env`: what a `${VAR}` of a new entry is checked against.
 */
export async function appMcpServers(
  database: Database,
  dataDir: string,
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
): Promise<AppMcpServers> {
  // @arbor/db at run time, not bundled (store.ts says why)
  const { AppMcpServerTable } = await import(/* turbopackIgnore: true */ "@arbor/db");
  const records = new AppMcpServerTable(database);
  try {
    const moved = await importAppMcpFile(dataDir, records);
    if (moved !== undefined) {
      logger.info("MCP servers of the settings moved into the database", {
        file: moved.file,
        imported: moved.imported,
        already_kept: moved.kept,
      });
    }
  } catch (error) {
    logger.error("the data directory's mcp_servers.json was not brought into the database", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  const servers = new AppMcpServers({ records, env });
  // the stamp as the manager is about to read the rows: a change after it is seen by the poll
  await servers.refresh();
  return servers;
}

/**
 * Reloads `mcp` whenever the poll sees that another instance added, switched or removed a server
 * (within STORE_POLL_MS, as workspace trust and provider keys); returns the stop.
 */
export function followAppMcp(appMcp: AppMcpServers, mcp: McpManager, logger: Logger): () => void {
  const unsubscribe = appMcp.onChange(() => void mcp.reload());
  const stopPoll = appMcp.poll((error) =>
    logger.warn("MCP servers of the settings not reread", { error: error.message }),
  );
  return () => {
    stopPoll();
    unsubscribe();
  };
}
