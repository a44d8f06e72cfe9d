import { describe, expect, it } from "vitest";
import { mayApprove, type SessionRelation } from "./approvers.js";
import { sessionConfig } from "./session-config.js";

describe("mayApprove", () => {
  const relations: SessionRelation[] = ["owner", "collaborator", "admin", "viewer", "none"];

  it("with approvers = collaborators: the owner, collaborators and admins; never viewers or strangers", () => {
    expect(relations.map((r) => [r, mayApprove(r, "collaborators")])).toEqual([
      ["owner", true],
      ["collaborator", true],
      ["admin", true],
      ["viewer", false],
      ["none", false],
    ]);
  });

  it("with approvers = owner: the session's owner alone", () => {
    expect(relations.filter((r) => mayApprove(r, "owner"))).toEqual(["owner"]);
  });

  it("a session's approvers default to collaborators; a stored config without it loads", () => {
    expect(sessionConfig().approvers).toBe("collaborators");
    expect(sessionConfig({ approvers: "owner" }).approvers).toBe("owner");
  });
});
