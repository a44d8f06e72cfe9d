import type { PersonRef } from "../model/person.js";
import { pollStore } from "../store/poll.js";
import { type SkillDir, SkillSet } from "./skill-set.js";

// Skills and sub-agents an admin switched off in Settings (issue #27 case 7, decision 0057). The
// install keeps one list of what is off (the database: @arbor/db ExtensionSwitchTable implements
// ExtensionSwitchRecords), read at start, after every change made here, and every couple of
// seconds for a change another instance made, as workspace trust and provider keys are. What is
// not on the list is on: a new skill or agent file is offered as before.
//
// A switched-off skill is not in the system prompt's `<available_skills>` and the `skill` tool
// does not load it; a switched-off sub-agent is not a tool of any session (one EnabledCatalog
// here: EnabledSkills, and EnabledAgents in subagents/). The listings (GET /api/skills,
// /api/agents) still show them, `enabled: false`, with who switched them off.

export type ExtensionKind = "skill" | "agent";

/** One skill or sub-agent switched off, and by whom. */
export interface DisabledExtension {
  kind: ExtensionKind;
  name: string;
  by: PersonRef;
  /** milliseconds since the epoch */
  at: number;
}

/** Where the list lives (the database; InMemoryExtensionSwitchRecords in tests). */
export interface ExtensionSwitchRecords {
  list(): Promise<DisabledExtension[]>;
  /** Switches one off; switching off what is off already keeps the first record. */
  disable(entry: DisabledExtension): Promise<void>;
  /** Switches one on again; false when it was not off. */
  enable(kind: ExtensionKind, name: string): Promise<boolean>;
}

export class InMemoryExtensionSwitchRecords implements ExtensionSwitchRecords {
  readonly #entries = new Map<string, DisabledExtension>();

  async list(): Promise<DisabledExtension[]> {
    return [...this.#entries.values()].map((e) => ({ ...e }));
  }

  async disable(entry: DisabledExtension): Promise<void> {
    const key = `${entry.kind}\0${entry.name}`;
    if (!this.#entries.has(key)) this.#entries.set(key, { ...entry });
  }

  async enable(kind: ExtensionKind, name: string): Promise<boolean> {
    return this.#entries.delete(`${kind}\0${name}`);
  }
}

export interface ExtensionSwitchesOptions {
  records: ExtensionSwitchRecords;
  now?: () => number;
}

/** The install's switched-off skills and sub-agents as last read. */
export class ExtensionSwitches {
  readonly #records: ExtensionSwitchRecords;
  readonly #now: () => number;
  #disabled = new Map<string, DisabledExtension>();
  #fingerprint = "";
  #version = 0;

  constructor(options: ExtensionSwitchesOptions) {
    this.#records = options.records;
    this.#now = options.now ?? Date.now;
  }

  /** The record of a switched-off one; undefined: it is on. */
  disabled(kind: ExtensionKind, name: string): DisabledExtension | undefined {
    return this.#disabled.get(`${kind}\0${name}`);
  }

  isEnabled(kind: ExtensionKind, name: string): boolean {
    return this.disabled(kind, name) === undefined;
  }

  /** Grows whenever the list changes (tool registries that cache compare it). */
  version(): number {
    return this.#version;
  }

  /** Switches one on or off on behalf of `by`, then rereads the list. */
  async set(kind: ExtensionKind, name: string, enabled: boolean, by: PersonRef): Promise<void> {
    if (enabled) await this.#records.enable(kind, name);
    else await this.#records.disable({ kind, name, by, at: this.#now() });
    await this.refresh();
  }

  /** Rereads the list (another instance may have changed it). */
  async refresh(): Promise<void> {
    const entries = await this.#records.list();
    const fingerprint = JSON.stringify(entries.map((e) => `${e.kind}\0${e.name}`).sort());
    this.#disabled = new Map(entries.map((e) => [`${e.kind}\0${e.name}`, e]));
    if (fingerprint !== this.#fingerprint) {
      this.#fingerprint = fingerprint;
      this.#version++;
    }
  }

  /** Rereads every `intervalMs` until the returned function is called (store/poll.ts). */
  poll(intervalMs: number, onError: (error: Error) => void): () => void {
    return pollStore(() => this.refresh(), onError, intervalMs);
  }
}

/**
 * What a session reads of a library of definitions found in directories (skills, agent files):
 * the library itself, or an EnabledCatalog over one.
 */
export interface Catalog<Found, Dir> {
  readonly dirs: readonly Dir[];
  /** Reads the directories now and returns what was found. */
  load(): Found;
  /** What the last `load()` found. */
  current(): Found;
  /** Grows whenever `current()` may have changed. */
  version(): number;
}

/**
 * A library's definitions without those an admin switched off: one shape for skills and
 * sub-agents (`keep` says how to filter what was found). Its version grows with the library's
 * and the switches', so a session's tool list follows a switch at its next turn.
 */
export class EnabledCatalog<Found, Dir> implements Catalog<Found, Dir> {
  readonly #library: Catalog<Found, Dir>;
  readonly #switches: ExtensionSwitches;
  readonly #kind: ExtensionKind;
  readonly #keep: (all: Found, enabled: (name: string) => boolean) => Found;
  #seen = "";
  #version = 0;
  #offered: { found: Found } | undefined;

  constructor(
    library: Catalog<Found, Dir>,
    switches: ExtensionSwitches,
    kind: ExtensionKind,
    keep: (all: Found, enabled: (name: string) => boolean) => Found,
  ) {
    this.#library = library;
    this.#switches = switches;
    this.#kind = kind;
    this.#keep = keep;
  }

  get dirs(): readonly Dir[] {
    return this.#library.dirs;
  }

  load(): Found {
    this.#library.load();
    return this.current();
  }

  current(): Found {
    return this.#refresh().found;
  }

  version(): number {
    this.#refresh();
    return this.#version;
  }

  #refresh(): { found: Found } {
    // the library's version grows when what it found changes (a reread that finds the same keeps it)
    const seen = `${this.#library.version()}:${this.#switches.version()}`;
    if (seen !== this.#seen || this.#offered === undefined) {
      this.#seen = seen;
      this.#offered = {
        found: this.#keep(this.#library.current(), (name) =>
          this.#switches.isEnabled(this.#kind, name),
        ),
      };
      this.#version++;
    }
    return this.#offered;
  }
}

/** What a session reads of its skills: SkillLibrary, or EnabledSkills over one. */
export type SkillCatalog = Catalog<SkillSet, SkillDir>;

/** The skills a session offers: the library's, without those switched off. */
export class EnabledSkills extends EnabledCatalog<SkillSet, SkillDir> {
  constructor(library: SkillCatalog, switches: ExtensionSwitches) {
    super(
      library,
      switches,
      "skill",
      (all, enabled) =>
        new SkillSet(
          all.list().filter((s) => enabled(s.name)),
          all.problems,
        ),
    );
  }
}
