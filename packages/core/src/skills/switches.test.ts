import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentLibrary, defaultAgentDirs } from "../subagents/agent-files.js";
import { EnabledAgents } from "../subagents/enabled-agents.js";
import { agentsResponse, skillsResponse } from "../subagents/views.js";
import { SkillLibrary } from "./skill-set.js";
import { EnabledSkills, ExtensionSwitches, InMemoryExtensionSwitchRecords } from "./switches.js";

// Skills and sub-agents switched off in Settings (issue #27 case 7, decision 0057): one list per
// install, in a store every instance reads.

const ANA = { id: "u-ana", name: "Ana" };

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), "arbor-switches-"));
  for (const name of ["deploy", "review"]) {
    mkdirSync(join(ws, ".arbor", "skills", name), { recursive: true });
    writeFileSync(
      join(ws, ".arbor", "skills", name, "SKILL.md"),
      `---\nname: ${name}\ndescription: How to ${name}\n---\nDo it.\n`,
    );
  }
  mkdirSync(join(ws, ".arbor", "agents"), { recursive: true });
  for (const name of ["researcher", "tester"]) {
    writeFileSync(
      join(ws, ".arbor", "agents", `${name}.md`),
      `---\nname: ${name}\ndescription: A ${name}\n---\nYou are a ${name}.\n`,
    );
  }
  return ws;
}

describe("ExtensionSwitches", () => {
  it("a switch made on one instance reaches another at its next reread", async () => {
    const records = new InMemoryExtensionSwitchRecords();
    const here = new ExtensionSwitches({ records, now: () => 5_000 });
    const there = new ExtensionSwitches({ records });
    await Promise.all([here.refresh(), there.refresh()]);
    const before = there.version();
    await here.set("skill", "deploy", false, ANA);
    expect(here.isEnabled("skill", "deploy")).toBe(false);
    expect(here.disabled("skill", "deploy")).toEqual({
      kind: "skill",
      name: "deploy",
      by: ANA,
      at: 5_000,
    });
    // a skill and an agent of one name are two switches
    expect(here.isEnabled("agent", "deploy")).toBe(true);
    expect(there.isEnabled("skill", "deploy")).toBe(true);
    await there.refresh();
    expect(there.isEnabled("skill", "deploy")).toBe(false);
    expect(there.version()).toBeGreaterThan(before);
    // a reread that finds the same list keeps the version (registries do not rebuild)
    const same = there.version();
    await there.refresh();
    expect(there.version()).toBe(same);
    await there.set("skill", "deploy", true, ANA);
    await here.refresh();
    expect(here.isEnabled("skill", "deploy")).toBe(true);
  });

  it("switching off twice keeps the first record", async () => {
    const records = new InMemoryExtensionSwitchRecords();
    const switches = new ExtensionSwitches({ records, now: () => 1 });
    await switches.set("agent", "tester", false, ANA);
    await switches.set("agent", "tester", false, { id: "u-bo", name: "Bo" });
    expect(switches.disabled("agent", "tester")?.by).toEqual(ANA);
  });
});

describe("EnabledSkills and EnabledAgents", () => {
  it("leave out what is switched off, and their versions follow the switches", async () => {
    const ws = workspace();
    const switches = new ExtensionSwitches({ records: new InMemoryExtensionSwitchRecords() });
    const library = new SkillLibrary([{ dir: join(ws, ".arbor", "skills"), source: "arbor" }]);
    const skills = new EnabledSkills(library, switches);
    const agentLibrary = new AgentLibrary(defaultAgentDirs(ws));
    const agents = new EnabledAgents(agentLibrary, switches);
    expect(
      skills
        .load()
        .list()
        .map((s) => s.name),
    ).toEqual(["deploy", "review"]);
    expect(agents.load().agents.map((a) => a.name)).toEqual(["researcher", "tester"]);
    const [skillsAt, agentsAt] = [skills.version(), agents.version()];
    // a reread that finds nothing new keeps the versions
    skills.load();
    agents.load();
    expect([skills.version(), agents.version()]).toEqual([skillsAt, agentsAt]);

    await switches.set("skill", "deploy", false, ANA);
    await switches.set("agent", "tester", false, ANA);
    expect(skills.version()).toBeGreaterThan(skillsAt);
    expect(agents.version()).toBeGreaterThan(agentsAt);
    expect(
      skills
        .current()
        .list()
        .map((s) => s.name),
    ).toEqual(["review"]);
    expect(skills.current().get("deploy")).toBeUndefined();
    expect(skills.current().formatForPrompt()).not.toContain("deploy");
    expect(agents.current().agents.map((a) => a.name)).toEqual(["researcher"]);

    // the listings show every one found, with its switch
    expect(skillsResponse(library.load(), switches).skills).toEqual([
      expect.objectContaining({
        name: "deploy",
        enabled: false,
        disabled_by: ANA,
        disabled_at: expect.any(String),
      }),
      expect.objectContaining({ name: "review", enabled: true, disabled_by: null }),
    ]);
    expect(
      agentsResponse(agentLibrary.load(), switches).agents.map((a) => [a.name, a.enabled]),
    ).toEqual([
      ["researcher", true],
      ["tester", false],
    ]);
  });
});
