import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";

// Encryption at rest of what must be read back (provider keys kept in Settings, docs/decisions/
// 0054): AES-256-GCM with a 256-bit key that never enters the database. The key is the file
// `provider-keys.key` of the data directory (made 0600 on first use, base64 of 32 random bytes),
// or ARBOR_ENCRYPTION_KEY (the same base64) when set: instances that share a database must share
// the key too (docs/security.md). A value sealed under one key opens under no other: GCM's tag
// fails, and open() says so rather than returning garbage.

/** The key file's name in the data directory. */
export const KEY_FILE_NAME = "provider-keys.key";
/** The variable that carries the key instead of the file (base64 of 32 bytes). */
export const KEY_VARIABLE = "ARBOR_ENCRYPTION_KEY";

const VERSION = "v1";

/** A sealed value that does not open: wrong key, edited row, or no key at all. */
export class SecretBoxError extends Error {
  override readonly name = "SecretBoxError";
}

export class SecretBox {
  readonly #key: Buffer;
  /** where the key came from, for messages (a path or the variable's name; never the key) */
  readonly source: string;

  constructor(key: Buffer, source: string) {
    if (key.length !== 32) {
      throw new SecretBoxError(`${source} must hold 32 bytes (base64), not ${key.length}`);
    }
    this.#key = key;
    this.source = source;
  }

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url); `context` is bound to it as associated data. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString("base64url"));
    return [VERSION, ...parts].join(".");
  }

  /** The plaintext of seal(plaintext, context); throws SecretBoxError when it does not open. */
  open(sealed: string, context: string): string {
    const [version, iv, tag, data, ...rest] = sealed.split(".");
    if (
      version !== VERSION ||
      iv === undefined ||
      tag === undefined ||
      data === undefined ||
      rest.length > 0
    ) {
      throw new SecretBoxError("the sealed value is not in the v1 format");
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(data, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      throw new SecretBoxError(
        `it does not open with the key of ${this.source}: it was sealed with another key (instances sharing a database must share the key file or set ${KEY_VARIABLE} alike), or the row was changed`,
      );
    }
  }
}

/**
 * The box of this instance: ARBOR_ENCRYPTION_KEY when set, else `<dataDir>/provider-keys.key`.
 * `create`: make the file (0600, exclusively: two processes starting at once keep one) when it
 * is missing; without it a missing file is undefined (nothing was ever sealed here).
 */
export function secretBoxOf(options: {
  dataDir: string;
  env?: Record<string, string | undefined>;
  create: boolean;
}): SecretBox | undefined {
  const fromEnv = options.env?.[KEY_VARIABLE]?.trim();
  if (fromEnv) return new SecretBox(Buffer.from(fromEnv, "base64"), KEY_VARIABLE);
  const file = join(options.dataDir, KEY_FILE_NAME);
  const read = (): SecretBox =>
    new SecretBox(Buffer.from(readFileSync(file, "utf8").trim(), "base64"), file);
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (!options.create) return undefined;
  try {
    const fd = openSync(file, "wx", 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString("base64")}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    // another process made it first: use theirs
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return read();
}
