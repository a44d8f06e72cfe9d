import { describe, expect, it } from "vitest";
import { sessionConfig } from "../../model/session-config.js";
import {
  approvalFor,
  deniedResultText,
  READ_ONLY_RULE_NOTE,
  readOnlyNames,
  rememberApproval,
  userNote,
} from "./approval-policy.js";

const readOnly = (name: string) => name === "read_file" || name === "search";
const bash = (command: string) => ({ name: "bash", arguments: { command } });

describe("approvalFor", () => {
  it("lets read-only tools run by default under the manual policy, naming the rule", () => {
    const config = sessionConfig({});
    expect(approvalFor(config, { name: "read_file", arguments: {} }, readOnly)).toEqual({
      approval: "auto_approved",
      note: READ_ONLY_RULE_NOTE,
    });
    expect(approvalFor(config, { name: "write_file", arguments: {} }, readOnly)).toEqual({
      approval: "pending",
    });
    expect(approvalFor(config, bash("ls"), readOnly)).toEqual({ approval: "pending" });
  });

  it("asks for read-only tools when approve_read_only is off", () => {
    const config = sessionConfig({ approve_read_only: false });
    expect(approvalFor(config, { name: "read_file", arguments: {} }, readOnly).approval).toBe(
      "pending",
    );
  });

  it("lets a bash call through when an allow rule allows it, naming the rule; never a compound command", () => {
    const config = sessionConfig({ allow_rules: ["Bash(npm test:*)"] });
    expect(approvalFor(config, bash("npm test -- --watch"), readOnly)).toEqual({
      approval: "auto_approved",
      note: "rule Bash(npm test:*)",
    });
    for (const command of ["npm run build", "npm test && rm -rf /", "npm test; rm -rf /"]) {
      expect(approvalFor(config, bash(command), readOnly).approval).toBe("pending");
    }
  });

  it("names the policy when the policy decides", () => {
    const config = sessionConfig({ approval_policy: { type: "white_list", tools: ["bash"] } });
    expect(approvalFor(config, bash("anything"), readOnly)).toEqual({
      approval: "auto_approved",
      note: "policy white_list",
    });
  });
});

describe("readOnlyNames", () => {
  it("takes the read tools, never an OpenAPI operation (its GET carries a credential to another host)", () => {
    const names = readOnlyNames([
      { name: "read_file", category: "read" },
      { name: "mcp__docs__search", category: "read", origin: { kind: "mcp" } },
      { name: "petstore_getPet", category: "read", origin: { kind: "openapi" } },
      { name: "bash", category: "execute" },
    ]);
    expect([...names]).toEqual(["read_file", "mcp__docs__search"]);
  });
});

describe("rememberApproval", () => {
  const settings = { approval_policy: { type: "manual" as const }, allow_rules: [] };

  it("adds a scoped rule that allows the call, once", () => {
    const first = rememberApproval(settings, bash("npm test"), { rule: "Bash(npm test:*)" });
    expect(first).toEqual({
      ok: true,
      settings: { ...settings, allow_rules: ["Bash(npm test:*)"] },
    });
    if (!first.ok) return;
    const again = rememberApproval(first.settings, bash("npm test"), { rule: "Bash(npm test:*)" });
    expect(again.ok && again.settings.allow_rules).toEqual(["Bash(npm test:*)"]);
  });

  it("refuses a rule that does not allow the call, or whose call's arguments are not at hand", () => {
    expect(rememberApproval(settings, bash("npm test"), { rule: "Bash(rm:*)" })).toEqual({
      ok: false,
      error: "the rule Bash(rm:*) does not allow this call",
    });
    expect(
      rememberApproval(settings, { name: "bash", arguments: undefined }, { rule: "Bash(ls:*)" }).ok,
    ).toBe(false);
  });

  it("remember on bash keeps its exact command, never the whole tool", () => {
    const outcome = rememberApproval(settings, bash(" npm test "), { remember: true });
    expect(outcome).toEqual({
      ok: true,
      settings: { approval_policy: { type: "manual" }, allow_rules: ["Bash(npm test)"] },
    });
    // without the arguments (a held child call) nothing is remembered
    expect(
      rememberApproval(settings, { name: "bash", arguments: undefined }, { remember: true }),
    ).toEqual({ ok: true, settings });
  });

  it("remember on another tool puts it on the white list", () => {
    expect(
      rememberApproval(settings, { name: "write_file", arguments: {} }, { remember: true }),
    ).toEqual({
      ok: true,
      settings: { approval_policy: { type: "white_list", tools: ["write_file"] }, allow_rules: [] },
    });
  });
});

describe("deny reasons", () => {
  it("are kept in the note and given to the model", () => {
    expect(userNote()).toBe("user");
    expect(userNote("  ")).toBe("user");
    expect(userNote(" use pnpm ")).toBe("user: use pnpm");
    expect(deniedResultText("user")).toBe("The user denied this tool call.");
    expect(deniedResultText("user: use pnpm")).toBe(
      "The user denied this tool call. The user's reason: use pnpm",
    );
  });
});
