import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tightenPrivateFile } from "@arbor/core/storage";

// The SQLite database and its companions (-wal, -shm, -journal) are readable by their owner only
// (0600; docs/security.md). SQLite makes the companions with the database file's own mode, so the
// file is made 0600 before SQLite first opens it, and everything is set to 0600 again once it has
// (a file an older version made 0644). A missing folder is made 0700; one that exists keeps its
// mode (it may be the user's own: DATABASE_URL=file:…; the app tightens its data directory).

const COMPANIONS = ["", "-wal", "-shm", "-journal"] as const;

/** Before SQLite opens `file`: its folder and an empty database file, private. */
export function prepareSqliteFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  // "a": made when missing (an empty file is an empty database), left as it is otherwise
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  tightenSqliteFiles(file);
}

/** The database file and whichever of its companions exist, set to 0600. */
export function tightenSqliteFiles(file: string): void {
  for (const suffix of COMPANIONS) tightenPrivateFile(`${file}${suffix}`);
}
