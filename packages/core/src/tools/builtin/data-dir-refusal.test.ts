import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../../test/support/tool-test-context.js";
import { readWorkspaceFile } from "../../codebase/file-view.js";
import { IgnoreRules, walkWorkspace } from "../../codebase/walk.js";
import { ToolError } from "../tool.js";
import { refuseInWorkspaces, Workspace } from "../workspace.js";
import { createEditFileTool } from "./edit-file.js";
import { createListFilesTool } from "./list-files.js";
import { createReadFileTool } from "./read-file.js";
import { createSearchTool } from "./search.js";
import { listWorkspaceFiles } from "./workspace-files.js";
import { createWriteFileTool } from "./write-file.js";

// Issue #24: with `npm start` Arbor's data directory (apps/web/.data: the database, the install
// token) lies inside the workspace, and read_file returned the token file. Every file tool, the
// file view and every walk refuse it, wherever it lies: by its path, through `..`, through a link.

const TOKEN = "tok_4f8a9c2e1b7d6a5f3c0e9b8a7d6c5b4a";

let base: string;
let root: string;
let dataDir: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-datadir-")));
  root = path.join(base, "ws");
  dataDir = path.join(root, "apps", "web", ".data");
  await mkdir(dataDir, { recursive: true });
  await writeFile(path.join(dataDir, "token"), `${TOKEN}\n`);
  await writeFile(path.join(dataDir, "notes.ts"), `export const token = "${TOKEN}";\n`);
  await writeFile(path.join(root, "README.md"), "a readme\n");
  await writeFile(path.join(root, "apps", "web", "page.ts"), "export const page = 1;\n");
  await symlink(dataDir, path.join(root, "shortcut"));
  refuseInWorkspaces(dataDir);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(run: Promise<unknown>): Promise<string> {
  const error = await run.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? "").join("\n");

describe("Arbor's data directory inside the workspace", () => {
  it("read_file, write_file and edit_file refuse it by its path, through .. and through a link", async () => {
    const ctx = createRecordingContext();
    const workspaceRoot = root;
    for (const input of [
      "apps/web/.data/token",
      "apps/web/.data",
      "apps/web/../web/.data/token",
      "shortcut/token",
      path.join(dataDir, "token"),
    ]) {
      expect(
        await refusal(createReadFileTool({ workspaceRoot }).execute({ path: input }, ctx)),
      ).toBe(
        `refused: '${input}' is Arbor's data directory (${dataDir}); the file tools never read, write or list it.`,
      );
    }
    expect(
      await refusal(
        createWriteFileTool({ workspaceRoot }).execute(
          { path: "shortcut/token", content: "mine" },
          ctx,
        ),
      ),
    ).toContain("is Arbor's data directory");
    expect(
      await refusal(
        createWriteFileTool({ workspaceRoot }).execute(
          { path: "apps/web/.data/new.txt", content: "x" },
          ctx,
        ),
      ),
    ).toContain("is Arbor's data directory");
    expect(
      await refusal(
        createEditFileTool({ workspaceRoot }).execute(
          { path: "apps/web/.data/token", old_text: TOKEN, new_text: "x" },
          ctx,
        ),
      ),
    ).toContain("is Arbor's data directory");
    expect(await readFile(path.join(dataDir, "token"), "utf8")).toBe(`${TOKEN}\n`);
    // the rest of the workspace is served as before
    const page = await createReadFileTool({ workspaceRoot }).execute(
      { path: "apps/web/page.ts" },
      ctx,
    );
    expect(text(page)).toContain("export const page");
  });

  it("list_files, search (rg and grep) and the file picker leave it out; naming it is refused", async () => {
    const ctx = createRecordingContext();
    const listed = text(await createListFilesTool({ workspaceRoot: root }).execute({}, ctx));
    expect(listed).toContain("apps/web/page.ts");
    expect(listed).not.toContain(".data");
    expect(
      await refusal(
        createListFilesTool({ workspaceRoot: root }).execute({ path: "apps/web/.data" }, ctx),
      ),
    ).toContain("is Arbor's data directory");
    for (const engine of ["rg", "grep"] as const) {
      const search = createSearchTool({ workspaceRoot: root, engine });
      const found = text(await search.execute({ pattern: "token|page" }, ctx));
      expect(found, engine).toContain("apps/web/page.ts");
      expect(found, engine).not.toContain(TOKEN);
      expect(found, engine).not.toContain(".data");
      expect(
        await refusal(search.execute({ pattern: "tok", path: "shortcut" }, ctx)),
        engine,
      ).toContain("is Arbor's data directory");
    }
    const picked = await listWorkspaceFiles(root);
    expect(picked).toContain("apps/web/page.ts");
    expect(picked.filter((f) => f.includes(".data"))).toEqual([]);
  });

  it("the file view and a Workspace of its own (file references) refuse it", async () => {
    expect(await readWorkspaceFile(root, "apps/web/.data/token")).toEqual({
      ok: false,
      reason: "outside",
      message: `refused: 'apps/web/.data/token' is Arbor's data directory (${dataDir}); the file tools never read, write or list it.`,
    });
    await expect(new Workspace(root).resolve("shortcut/../shortcut/token")).rejects.toThrow(
      "is Arbor's data directory",
    );
  });

  it("the codebase index does not walk it", () => {
    const walked = walkWorkspace(root, { excludedDirs: [dataDir] });
    expect(walked.files.map((f) => f.path)).toEqual(["README.md", "apps/web/page.ts"]);
    expect(walkWorkspace(root).files.map((f) => f.path)).toContain("apps/web/.data/notes.ts");
    const rules = new IgnoreRules(root, [dataDir]);
    expect(rules.ignores("apps/web/.data/notes.ts")).toBe(true);
    expect(rules.ignores("apps/web/page.ts")).toBe(false);
  });
});
