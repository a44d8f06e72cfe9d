import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFrontMatter } from "./front-matter.js";
import { defaultSkillDirs, SkillLibrary, SkillSet } from "./skill-set.js";
import { createSkillTool } from "./skill-tool.js";

function skill(root: string, folder: string, content: string, files: Record<string, string> = {}) {
  mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, folder, "SKILL.md"), content);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, folder, name, ".."), { recursive: true });
    writeFileSync(join(root, folder, name), text);
  }
}

const md = (name: string, description: string, body = "Do the thing.") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

const toolCtx = {
  toolCallId: "c",
  toolName: "skill",
  signal: new AbortController().signal,
  onUpdate: () => undefined,
  onProgress: () => undefined,
};

describe("parseFrontMatter (REQ-110)", () => {
  it("parses fields and body; quotes stripped by YAML", () => {
    const parsed = parseFrontMatter(`---\nname: "pdf"\ndescription: 'Reads PDFs'\n---\nBody\n`);
    expect(parsed).toEqual({
      ok: true,
      data: { name: "pdf", description: "Reads PDFs" },
      body: "Body\n",
    });
  });

  it("reports missing delimiters and bad YAML", () => {
    expect(parseFrontMatter("name: x\n")).toMatchObject({
      ok: false,
      error: { kind: "invalid_front_matter" },
    });
    expect(parseFrontMatter("---\nname: x\n")).toMatchObject({
      ok: false,
      error: { reason: "the front matter has no closing `---` line" },
    });
    expect(parseFrontMatter("---\nname: [x\n---\n")).toMatchObject({
      ok: false,
      error: { kind: "invalid_front_matter", reason: expect.stringContaining("not valid YAML") },
    });
  });
});

describe("SkillSet", () => {
  it("REQ-109/112: loads dirs in order, later wins a name, missing dirs skipped, problems reported", () => {
    const root = mkdtempSync(join(tmpdir(), "skills-"));
    const user = join(root, "user");
    const ws = join(root, "ws");
    skill(user, "foo", md("foo", "user foo"));
    skill(user, "bar", md("bar", "user bar"));
    skill(join(ws, ".claude", "skills"), "foo", md("foo", "claude foo"));
    skill(join(ws, ".arbor", "skills"), "foo", md("foo", "arbor foo"));
    skill(join(ws, ".arbor", "skills"), "broken", "---\ndescription: no name\n---\n");
    skill(join(ws, ".arbor", "skills"), "Bad", md("Bad Name", "x"));
    mkdirSync(join(ws, ".arbor", "skills", "not-a-skill"));
    const dirs = [
      { dir: user, source: "user" as const },
      { dir: join(root, "missing"), source: "user" as const },
      ...defaultSkillDirs(ws).slice(1),
    ];
    const set = SkillSet.load(dirs);
    expect(set.list().map((s) => [s.name, s.description, s.source])).toEqual([
      ["bar", "user bar", "user"],
      ["foo", "arbor foo", "arbor"],
    ]);
    expect(set.problems.map((p) => p.reason)).toEqual([
      '`name` "Bad Name" must be lowercase letters, digits and hyphens (at most 64)',
      "`name` is missing",
    ]);
  });

  it("REQ-111: formats <available_skills> sorted and escaped; empty without skills", () => {
    const set = new SkillSet([
      { name: "zeta", description: "z", dir: "/z", path: "/z/SKILL.md", source: "user" },
      { name: "alpha", description: 'a < b & "c"', dir: "/a", path: "/a/SKILL.md", source: "user" },
    ]);
    expect(set.formatForPrompt()).toBe(
      [
        "<available_skills>",
        "<skill>\n<name>alpha</name>\n<description>a &lt; b &amp; &quot;c&quot;</description>\n</skill>",
        "<skill>\n<name>zeta</name>\n<description>z</description>\n</skill>",
        "</available_skills>",
      ].join("\n"),
    );
    expect(new SkillSet().formatForPrompt()).toBe("");
  });

  it("SkillLibrary re-reads changed files and bumps its version only on change", () => {
    const root = mkdtempSync(join(tmpdir(), "skills-"));
    skill(root, "one", md("one", "first"));
    const library = new SkillLibrary([{ dir: root, source: "arbor" }]);
    expect(library.load().get("one")?.description).toBe("first");
    const v = library.version();
    library.load();
    expect(library.version()).toBe(v);
    writeFileSync(join(root, "one", "SKILL.md"), md("one", "second, longer"));
    expect(library.load().get("one")?.description).toBe("second, longer");
    expect(library.version()).toBe(v + 1);
  });
});

describe("skill tool", () => {
  it("loads the body and file list, then a file; refuses paths outside the folder", async () => {
    const root = mkdtempSync(join(tmpdir(), "skills-"));
    skill(root, "pdf", md("pdf", "PDF work", "Use the script."), {
      "scripts/extract.py": "print('x')",
      "reference.md": "# Ref",
    });
    writeFileSync(join(root, "secret.txt"), "nope");
    symlinkSync(join(root, "secret.txt"), join(root, "pdf", "link.txt"));
    const library = new SkillLibrary([{ dir: root, source: "arbor" }]);
    const tool = createSkillTool(() => library.load());
    const loaded = await tool.execute({ name: "pdf" }, toolCtx);
    const first = loaded.content[0];
    const text = first?.type === "text" ? first.text : "";
    expect(text).toContain("# Skill: pdf\n\nUse the script.");
    expect(text).not.toContain("description:");
    expect(text).toContain("- reference.md\n- scripts/extract.py");
    const file = await tool.execute({ name: "pdf", file: "scripts/extract.py" }, toolCtx);
    expect(file.content[0]).toEqual({ type: "text", text: "print('x')" });
    await expect(
      tool.execute({ name: "pdf", file: "../secret.txt" }, toolCtx),
    ).rejects.toMatchObject({
      kind: "invalidArgs",
    });
    await expect(tool.execute({ name: "pdf", file: "link.txt" }, toolCtx)).rejects.toMatchObject({
      kind: "invalidArgs",
    });
    await expect(tool.execute({ name: "nope" }, toolCtx)).rejects.toThrow(/Skills: pdf/);
  });
});

describe("Agent.withSkills (REQ-113)", () => {
  it("appends <available_skills> to the system prompt and adds the skill tool", async () => {
    const { Agent } = await import("../agent/agent.js");
    const { ScriptedProvider } = await import("../testing/scripted-provider.js");
    const { modelConfig } = await import("../model/llm-config.js");
    const set = new SkillSet([
      { name: "pdf", description: "PDFs", dir: "/s/pdf", path: "/s/pdf/SKILL.md", source: "user" },
    ]);
    const agent = new Agent({
      provider: new ScriptedProvider(),
      model: modelConfig({ protocol: "offline", model: "m" }),
      systemPrompt: "Base.",
    }).withSkills(set);
    expect(agent.settings.systemPrompt).toBe(`Base.\n\n${set.formatForPrompt()}`);
    expect(agent.settings.tools.map((t) => t.name)).toEqual(["skill"]);
    expect(
      new Agent({
        provider: new ScriptedProvider(),
        model: modelConfig({ protocol: "offline", model: "m" }),
      }).withSkills(new SkillSet()).settings.tools,
    ).toEqual([]);
  });
});
