import {
  describeModelConfig,
  inEnvironment,
  KEY_PROVIDERS,
  type KeyProvider,
  keyHint,
  type Logger,
  type ModelConfig,
  modelConfigFromEnv,
  PROVIDER_KEY_VARIABLES,
  type ProviderKeysResponse,
  pollStore,
  providerKeySource,
  STORE_POLL_MS,
  withProviderKeys,
} from "@arbor/core";
import type { Database, KeptKeyRecord, SecretBox } from "@arbor/db";

// Provider keys an admin keeps in Settings › Model providers (issue #27, docs/decisions/0054).
//
// The keys live in the database, sealed (@arbor/db ProviderKeyTable, AES-256-GCM under the data
// directory's key file or ARBOR_ENCRYPTION_KEY). Each instance opens them into memory and lays
// them over the server's environment as the provider's official variable: the model and the
// variables a session switching protocols reads come from that overlay, asked at each model
// request (SessionDeps.model is a function), so a key kept here is used by the next request
// without a restart. The instance that writes refreshes at once; the others reread the table every
// POLL_MS (as workspace trust does).
//
// Contract: a kept key leaves this object only towards a model provider. It is never in an
// answer (views carry the hint), an event or a log line (the logger's live secrets), never in a
// tool process's environment (tools get the server's own environment, scrubbed, never the
// overlay), and tool output is redacted of it (`secrets()`).

type Env = Record<string, string | undefined>;

/** How often the other instances reread the kept keys. */
export const POLL_MS = STORE_POLL_MS;

interface Options {
  database: Database;
  dataDir: string;
  env: Env;
  logger: Logger;
}

type Kept = Map<KeyProvider, KeptKeyRecord & { key: string }>;

export type RemoveOutcome = "removed" | "not_found" | { refused: string };

export class ProviderKeys {
  readonly #database: Database;
  readonly #dataDir: string;
  readonly #env: Env;
  readonly #logger: Logger;
  #kept: Kept;
  #problems: Map<KeyProvider, string>;
  #modelEnv: Env;
  #model: ModelConfig;

  private constructor(options: Options, read: ReadKept, modelEnv: Env, model: ModelConfig) {
    this.#database = options.database;
    this.#dataDir = options.dataDir;
    this.#env = options.env;
    this.#logger = options.logger;
    this.#kept = read.kept;
    this.#problems = read.problems;
    this.#modelEnv = modelEnv;
    this.#model = model;
  }

  /**
   * Reads the kept keys, then the model they and the environment choose. Throws as
   * modelConfigFromEnv does when ARBOR_PROVIDER names a provider with no key anywhere.
   */
  static async open(options: Options): Promise<ProviderKeys> {
    const read = await readKept(options);
    const modelEnv = withProviderKeys(options.env, keysOf(read.kept));
    const keys = new ProviderKeys(options, read, modelEnv, modelConfigFromEnv(modelEnv));
    for (const [provider, problem] of read.problems) {
      options.logger.error("a kept provider key does not open", { provider, problem });
    }
    return keys;
  }

  /** The model a session without its own uses, as it is now. */
  model(): ModelConfig {
    return this.#model;
  }

  /** The environment the model's providers read: the server's with the kept keys over it. */
  modelEnv(): Env {
    return this.#modelEnv;
  }

  /** The kept keys' values: redacted from tool output and log lines. */
  secrets(): string[] {
    return [...this.#kept.values()].map((k) => k.key);
  }

  /** What Settings shows: per provider, the source in force and the hint; never a key. */
  view(): ProviderKeysResponse {
    const described = describeModelConfig(this.#model);
    return {
      providers: KEY_PROVIDERS.map((provider) => {
        const meta = PROVIDER_KEY_VARIABLES[provider];
        const kept = this.#kept.get(provider);
        const problem = this.#problems.get(provider);
        return {
          provider,
          label: meta.label,
          variable: meta.variable,
          source: providerKeySource(provider, this.#env, kept !== undefined),
          environment: inEnvironment(provider, this.#env),
          hint: kept?.hint ?? null,
          set_by: kept?.setBy ?? null,
          set_at: kept ? new Date(kept.setAt).toISOString() : null,
          needs: [...meta.needs],
          ...(problem !== undefined ? { problem } : {}),
        };
      }),
      model: { name: described.name, protocol: described.protocol },
    };
  }

  /** Keeps `key` for `provider` (sealed; the key file is made on first use) and applies it here. */
  async set(provider: KeyProvider, key: string, by: { id: string; name: string }): Promise<void> {
    const { ProviderKeyTable, secretBoxOf } = await db();
    const box = secretBoxOf({ dataDir: this.#dataDir, env: this.#env, create: true });
    if (box === undefined) throw new Error("no key file could be made");
    await new ProviderKeyTable(this.#database).set(provider, key, keyHint(key), by, box);
    await this.refresh();
  }

  /**
   * Forgets the provider's kept key. Refused when the environment's ARBOR_PROVIDER would then
   * have no key (the server could not choose its model); the variable, if set, is in force after.
   */
  async remove(provider: KeyProvider): Promise<RemoveOutcome> {
    if (!this.#kept.has(provider) && !this.#problems.has(provider)) return "not_found";
    const rest = keysOf(this.#kept);
    delete rest[provider];
    try {
      modelConfigFromEnv(withProviderKeys(this.#env, rest));
    } catch (error) {
      return { refused: error instanceof Error ? error.message : String(error) };
    }
    const { ProviderKeyTable } = await db();
    const removed = await new ProviderKeyTable(this.#database).remove(provider);
    await this.refresh();
    return removed ? "removed" : "not_found";
  }

  /** Rereads the table (another instance may have kept or removed a key). */
  async refresh(): Promise<void> {
    const kept = await readKept({
      database: this.#database,
      dataDir: this.#dataDir,
      env: this.#env,
    });
    const modelEnv = withProviderKeys(this.#env, keysOf(kept.kept));
    let model: ModelConfig;
    try {
      model = modelConfigFromEnv(modelEnv);
    } catch (error) {
      // another instance removed a key this one's ARBOR_PROVIDER needs: keep the model in use
      this.#logger.warn("provider keys: the model is kept as it was", {
        error: error instanceof Error ? error.message : String(error),
      });
      model = this.#model;
    }
    this.#apply(kept, modelEnv, model);
  }

  /** Rereads every `ms` until the returned function is called. */
  poll(ms = POLL_MS): () => void {
    return pollStore(
      () => this.refresh(),
      (error) => this.#logger.warn("provider keys not reread", { error: error.message }),
      ms,
    );
  }

  #apply(read: ReadKept, modelEnv: Env, model: ModelConfig): void {
    const before = describeModelConfig(this.#model);
    for (const [provider, problem] of read.problems) {
      if (this.#problems.get(provider) !== problem) {
        this.#logger.error("a kept provider key does not open", { provider, problem });
      }
    }
    this.#kept = read.kept;
    this.#problems = read.problems;
    this.#modelEnv = modelEnv;
    this.#model = model;
    const after = describeModelConfig(model);
    if (before.protocol !== after.protocol || before.model !== after.model) {
      this.#logger.info("default model changed by a provider key", { model: after });
    }
  }
}

interface ReadKept {
  kept: Kept;
  problems: Map<KeyProvider, string>;
}

async function readKept(options: Pick<Options, "database" | "dataDir" | "env">): Promise<ReadKept> {
  const { ProviderKeyTable, secretBoxOf } = await db();
  const kept: Kept = new Map();
  const problems = new Map<KeyProvider, string>();
  let box: SecretBox | undefined;
  let boxProblem: string | undefined;
  try {
    box = secretBoxOf({ dataDir: options.dataDir, env: options.env, create: false });
  } catch (error) {
    boxProblem = error instanceof Error ? error.message : String(error);
  }
  for (const opened of await new ProviderKeyTable(options.database).open(box)) {
    if (!isKeyProvider(opened.provider)) continue;
    if ("key" in opened) kept.set(opened.provider, opened);
    else problems.set(opened.provider, boxProblem ?? opened.problem);
  }
  return { kept, problems };
}

function keysOf(kept: Kept): Partial<Record<KeyProvider, string>> {
  return Object.fromEntries([...kept].map(([provider, k]) => [provider, k.key]));
}

function isKeyProvider(value: string): value is KeyProvider {
  return (KEY_PROVIDERS as readonly string[]).includes(value);
}

/** @arbor/db at run time, not bundled (store.ts says why). */
function db() {
  return import(/* turbopackIgnore: true */ "@arbor/db");
}
