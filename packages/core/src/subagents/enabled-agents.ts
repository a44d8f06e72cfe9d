import { type Catalog, EnabledCatalog, type ExtensionSwitches } from "../skills/switches.js";
import type { AgentDefinitions, AgentDir } from "./agent-files.js";

/** What a session reads of its agent files: AgentLibrary, or EnabledAgents over one. */
export type AgentCatalog = Catalog<AgentDefinitions, AgentDir>;

/**
 * The sub-agents a session offers: the library's, without those an admin switched off in
 * Settings (skills/switches.ts, decision 0057), so a switched-off agent leaves every session's
 * tools at its next turn.
 */
export class EnabledAgents extends EnabledCatalog<AgentDefinitions, AgentDir> {
  constructor(library: AgentCatalog, switches: ExtensionSwitches) {
    super(library, switches, "agent", (all, enabled) => ({
      agents: all.agents.filter((a) => enabled(a.name)),
      problems: all.problems,
    }));
  }
}
