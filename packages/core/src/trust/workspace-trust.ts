import { pollStore } from "../store/poll.js";
import type { SessionStore, WorkspaceTrustRecord } from "../store/types.js";
import type { ConfigDefinition, DefinitionKey } from "./definitions.js";

// Which definitions of one workspace's executable configuration a person has trusted. The
// records live in the database (SessionStore's workspace trust), never in a file a tool can
// write; this keeps a copy read at start and after every change, and (several instances on one
// database) polls for changes another instance made. ARBOR_TRUST_WORKSPACE_CONFIG=1 (`trustAll`)
// trusts every definition without a record, for scripted setups.

type TrustStore = Pick<
  SessionStore,
  "listWorkspaceTrust" | "putWorkspaceTrust" | "deleteWorkspaceTrust"
>;

/**
 * trusted: a record with this hash (or trustAll); changed: trusted once, then the definition
 * changed; untrusted: never trusted.
 */
export type TrustStatus = "trusted" | "untrusted" | "changed";

export interface WorkspaceTrustOptions {
  store: TrustStore;
  /** the workspace's absolute root */
  workspace: string;
  /** ARBOR_TRUST_WORKSPACE_CONFIG=1: every definition is trusted */
  trustAll?: boolean;
  now?: () => Date;
}

export class WorkspaceTrust {
  readonly workspace: string;
  readonly trustAll: boolean;
  readonly #store: TrustStore;
  readonly #now: () => Date;
  #records = new Map<string, WorkspaceTrustRecord>();
  #fingerprint = "";
  #listeners = new Set<() => void>();

  constructor(options: WorkspaceTrustOptions) {
    this.workspace = options.workspace;
    this.trustAll = options.trustAll ?? false;
    this.#store = options.store;
    this.#now = options.now ?? (() => new Date());
  }

  /** Rereads the records; tells the listeners when they changed. */
  async refresh(): Promise<void> {
    const records = await this.#store.listWorkspaceTrust(this.workspace);
    const fingerprint = JSON.stringify(
      records.map((r) => [r.file, r.name, r.hash]).sort((a, b) => a.join().localeCompare(b.join())),
    );
    this.#records = new Map(records.map((r) => [key(r), r]));
    if (fingerprint === this.#fingerprint) return;
    this.#fingerprint = fingerprint;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // a listener's failure is its own
      }
    }
  }

  status(definition: DefinitionKey & { hash: string }): TrustStatus {
    const record = this.#records.get(key(definition));
    if (record?.hash === definition.hash) return "trusted";
    if (this.trustAll) return "trusted";
    return record === undefined ? "untrusted" : "changed";
  }

  isTrusted(definition: DefinitionKey & { hash: string }): boolean {
    return this.status(definition) === "trusted";
  }

  /** The stored record of `definition` (absent: never trusted, or trusted by trustAll only). */
  record(definition: DefinitionKey): WorkspaceTrustRecord | undefined {
    return this.#records.get(key(definition));
  }

  /** Trusts `definition` as it is now (its hash), on behalf of `by`. */
  async trust(definition: ConfigDefinition, by: string): Promise<WorkspaceTrustRecord> {
    const record: WorkspaceTrustRecord = {
      workspace: this.workspace,
      file: definition.file,
      name: definition.name,
      hash: definition.hash,
      trusted_by: by,
      trusted_at: this.#now().toISOString(),
    };
    await this.#store.putWorkspaceTrust(record);
    await this.refresh();
    return record;
  }

  async revoke(definition: DefinitionKey): Promise<void> {
    await this.#store.deleteWorkspaceTrust(this.workspace, definition.file, definition.name);
    await this.refresh();
  }

  /** Called after the records changed (here or, seen by `poll`, on another instance). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Rereads the records every `intervalMs` (another instance may trust); returns the stop. */
  poll(intervalMs: number, onError: (error: Error) => void): () => void {
    return pollStore(() => this.refresh(), onError, intervalMs);
  }
}

function key(definition: DefinitionKey): string {
  return `${definition.file}\0${definition.name}`;
}
