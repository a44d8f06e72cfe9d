import type { ExtensionSwitches } from "../skills/switches.js";
import type { AgentDefinitions, AgentDir } from "./agent-files.js";

/** What a session reads of its agent files: AgentLibrary, or EnabledAgents over one. */
export interface AgentCatalog {
  readonly dirs: readonly AgentDir[];
  load(): AgentDefinitions;
  current(): AgentDefinitions;
  /** Grows whenever `current()` may have changed. */
  version(): number;
}

/**
 * The sub-agents a session offers: the library's, without those an admin switched off in
 * Settings (skills/switches.ts, decision 0057). Its version grows with the library's and the
 * switches', so a switched-off agent leaves every session's tools at its next turn.
 */
export class EnabledAgents implements AgentCatalog {
  readonly #library: AgentCatalog;
  readonly #switches: ExtensionSwitches;
  #seen = "";
  #version = 0;
  #offered: AgentDefinitions = { agents: [], problems: [] };

  constructor(library: AgentCatalog, switches: ExtensionSwitches) {
    this.#library = library;
    this.#switches = switches;
  }

  get dirs(): readonly AgentDir[] {
    return this.#library.dirs;
  }

  load(): AgentDefinitions {
    this.#library.load();
    return this.current();
  }

  current(): AgentDefinitions {
    this.version();
    return this.#offered;
  }

  version(): number {
    const seen = `${this.#library.version()}:${this.#switches.version()}`;
    if (seen !== this.#seen) {
      this.#seen = seen;
      const all = this.#library.current();
      this.#offered = {
        agents: all.agents.filter((a) => this.#switches.isEnabled("agent", a.name)),
        problems: all.problems,
      };
      this.#version++;
    }
    return this.#version;
  }
}
