import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// A throwaway PostgreSQL cluster started from the machine's own binaries: the PostgreSQL half of
// the test suite, the benches and `db:migrate:create` (whose shadow database needs a server) use
// it. initdb refuses to run as root, so the cluster belongs to the `postgres` system user and every
// server command runs through `runuser -u postgres`. The server listens on 127.0.0.1 on a free port
// with its unix socket inside the cluster's own temporary folder, so clusters never collide.

export const PG_BIN = process.env.ARBOR_PG_BIN ?? "/usr/lib/postgresql/15/bin";

export interface PgCluster {
  /** postgresql://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  dir: string;
  /** a URL for another database on the same server */
  urlFor(database: string): string;
  /** creates a database and returns its URL */
  createDatabase(name: string): Promise<string>;
  stop(): void;
}

/** Why a cluster cannot be started here, or undefined when it can. */
export function pgClusterUnavailableReason(): string | undefined {
  if (!existsSync(join(PG_BIN, "initdb")) || !existsSync(join(PG_BIN, "pg_ctl"))) {
    return `PostgreSQL 15 binaries not found in ${PG_BIN} (install postgresql-15 or set ARBOR_PG_BIN)`;
  }
  if (process.getuid?.() !== 0) {
    return "starting a throwaway PostgreSQL cluster needs root (initdb runs as the postgres user through runuser)";
  }
  const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  if (id.status !== 0) return "there is no `postgres` system user to own the cluster";
  return undefined;
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}

/** runuser lives in an sbin folder, which a PATH without them (a minimal CI shell) leaves out */
const RUNUSER =
  ["/usr/sbin/runuser", "/sbin/runuser"].find((path) => existsSync(path)) ?? "runuser";

function asPostgres(command: string, args: string[]): void {
  execFileSync(RUNUSER, ["-u", "postgres", "--", join(PG_BIN, command), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export interface PgClusterOptions {
  /** fsync on commit; off by default: a test cluster is deleted afterwards (benches turn it on) */
  fsync?: boolean;
}

export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const reason = pgClusterUnavailableReason();
  if (reason !== undefined) throw new Error(`cannot start PostgreSQL: ${reason}`);
  const dir = mkdtempSync(join(tmpdir(), "arbor-pg-"));
  const postgresUid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const postgresGid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  chownSync(dir, postgresUid, postgresGid);
  const data = join(dir, "data");
  const port = await freePort();
  try {
    asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
    asPostgres("pg_ctl", [
      "-D",
      data,
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync ? "on" : "off"} -c max_connections=300`,
      "-l",
      join(dir, "log"),
      "-w",
      "start",
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start PostgreSQL in ${dir}`, { cause: error });
  }
  const urlFor = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const url = urlFor("postgres");
  let stopped = false;
  return {
    url,
    port,
    dir,
    urlFor,
    async createDatabase(name: string): Promise<string> {
      const { default: pg } = await import("pg");
      // bounded, so a cluster that does not answer fails naming this step, not a test's timeout
      const client = new pg.Client({
        connectionString: url,
        connectionTimeoutMillis: 30_000,
        query_timeout: 60_000,
      });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, "")}"`);
      } finally {
        await client.end();
      }
      return urlFor(name);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
