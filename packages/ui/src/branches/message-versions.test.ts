import type { Branch } from "@arbor/core/browser";
import { describe, expect, it } from "vitest";
import { messageVersions } from "./message-versions.js";

function branch(id: string, ids: string[], at: string, parent: string | null = null): Branch {
  return {
    id,
    session_id: "s",
    name: id,
    parent_branch_id: parent,
    fork_message_id: null,
    message_ids: ids,
    merged_from: [],
    created_at: at,
    updated_at: at,
  };
}

describe("messageVersions", () => {
  const main = branch("main", ["u1", "a1", "u2", "a2"], "2026-01-01T00:00:00Z");
  // a regenerated answer to u2, and an edit of u1
  const regen = branch("regen", ["u1", "a1", "u2", "a2b"], "2026-01-02T00:00:00Z", "main");
  const edit = branch("edit", ["u1b", "a1b"], "2026-01-03T00:00:00Z", "main");

  it("finds the versions of each place, oldest first, on the active branch", () => {
    const onMain = messageVersions([main, regen, edit], "main");
    expect(onMain.get("u1")).toEqual({ index: 0, branchIds: ["main", "edit"] });
    expect(onMain.get("a2")).toEqual({ index: 0, branchIds: ["main", "regen"] });
    expect(onMain.has("a1")).toBe(false);
    expect(onMain.has("u2")).toBe(false);

    const onRegen = messageVersions([main, regen, edit], "regen");
    expect(onRegen.get("a2b")).toEqual({ index: 1, branchIds: ["main", "regen"] });
    expect(onRegen.get("u1")).toEqual({ index: 0, branchIds: ["regen", "edit"] });

    const onEdit = messageVersions([main, regen, edit], "edit");
    expect(onEdit.get("u1b")?.index).toBe(1);
    expect(onEdit.has("a1b")).toBe(false);
  });

  it("a branch that only goes further is no version of anything", () => {
    const longer = branch("longer", ["u1", "a1", "u2", "a2", "u3"], "2026-01-02T00:00:00Z");
    expect(messageVersions([main, longer], "main").size).toBe(0);
    expect(messageVersions([main], "nope").size).toBe(0);
  });

  it("puts the switch of a place held by a notice on the answer after it (ask N ways)", () => {
    // the chosen answer follows the verdict notice; the other candidates' branches hold theirs
    const chosen = branch("chosen", ["u1", "notice", "a1"], "2026-01-01T00:00:00Z");
    const other = branch("other", ["u1", "b1"], "2026-01-02T00:00:00Z", "chosen");
    const third = branch("third", ["u1", "c1"], "2026-01-03T00:00:00Z", "chosen");
    const found = messageVersions([chosen, other, third], "chosen", (id) => id === "notice");
    expect(found.has("notice")).toBe(false);
    expect(found.get("a1")).toEqual({ index: 0, branchIds: ["chosen", "other", "third"] });
    // without knowing the notice, the switch sits on it (what issue #27 found)
    expect(messageVersions([chosen, other, third], "chosen").has("notice")).toBe(true);
  });
});
