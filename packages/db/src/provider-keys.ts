import type { Database } from "./database.js";
import { type SecretBox, SecretBoxError } from "./secret-box.js";

// Provider keys kept in Settings (issue #27, docs/decisions/0054), in `provider_keys`: one row per
// provider, the key sealed by the instance's SecretBox with the provider as associated data (a
// sealed value moved to another provider's row does not open), and the hint shown in its place.
// Every instance reads the rows and opens them with the shared key: nothing lives in one
// instance's memory that another could not rebuild.

export interface KeptKeyRecord {
  provider: string;
  /** the key's last four characters (`…abcd`) */
  hint: string;
  setBy: { id: string; name: string };
  /** milliseconds since the epoch */
  setAt: number;
}

/** A kept key read back: opened, or why it did not open (never the sealed text). */
export type OpenedKey = KeptKeyRecord & ({ key: string } | { problem: string });

export class ProviderKeyTable {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** The rows without their keys, oldest provider name first. */
  async list(): Promise<KeptKeyRecord[]> {
    const rows = await this.#db.client.providerKey.findMany({ orderBy: { provider: "asc" } });
    return rows.map(recordOf);
  }

  /**
   * Every row, opened with `box`; a row that does not open (another key, no key file) carries
   * the reason instead of a key. `box` undefined: nothing was ever sealed on this instance.
   */
  async open(box: SecretBox | undefined): Promise<OpenedKey[]> {
    const rows = await this.#db.client.providerKey.findMany({ orderBy: { provider: "asc" } });
    return rows.map((row) => {
      const record = recordOf(row);
      if (box === undefined) {
        return {
          ...record,
          problem:
            "no key file to open it with (the data directory's provider-keys.key, or ARBOR_ENCRYPTION_KEY)",
        };
      }
      try {
        return { ...record, key: box.open(row.sealed, row.provider) };
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
        return { ...record, problem: error.message };
      }
    });
  }

  /** Keeps `key` for `provider`, sealed, replacing what was kept. */
  async set(
    provider: string,
    key: string,
    hint: string,
    by: { id: string; name: string },
    box: SecretBox,
    now = Date.now(),
  ): Promise<KeptKeyRecord> {
    const data = {
      sealed: box.seal(key, provider),
      hint,
      setById: by.id,
      setByName: by.name,
      setAt: BigInt(now),
    };
    const row = await this.#db.client.providerKey.upsert({
      where: { provider },
      create: { provider, ...data },
      update: data,
    });
    return recordOf(row);
  }

  /** Forgets the provider's key; false when none was kept. */
  async remove(provider: string): Promise<boolean> {
    const { count } = await this.#db.client.providerKey.deleteMany({ where: { provider } });
    return count > 0;
  }
}

function recordOf(row: {
  provider: string;
  hint: string;
  setById: string;
  setByName: string;
  setAt: bigint;
}): KeptKeyRecord {
  return {
    provider: row.provider,
    hint: row.hint,
    setBy: { id: row.setById, name: row.setByName },
    setAt: Number(row.setAt),
  };
}
