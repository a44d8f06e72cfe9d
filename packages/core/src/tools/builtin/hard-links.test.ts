import { link, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../../test/support/tool-test-context.js";
import { ToolError } from "../tool.js";
import { createEditFileTool } from "./edit-file.js";
import { createReadFileTool } from "./read-file.js";
import { createWriteFileTool } from "./write-file.js";

// Issue #9: a hard link inside the workspace to a file outside it was read and edited. The file
// tools refuse any regular file with more than one link: nothing tells where the other names are.

let base: string;
let root: string;
let outsideFile: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-links-")));
  root = path.join(base, "ws");
  await mkdir(root);
  outsideFile = path.join(base, "outside.txt");
  await writeFile(outsideFile, "outside secret\n");
  await link(outsideFile, path.join(root, "linked.txt"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const REFUSAL = "refused: linked.txt has 2 hard links; another name may lie outside the workspace";

async function refusal(run: Promise<unknown>): Promise<string> {
  const error = await run.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe("hard links", () => {
  it("read_file, write_file and edit_file refuse a file with two links; the outside file is untouched", async () => {
    const ctx = createRecordingContext();
    const workspaceRoot = root;
    expect(
      await refusal(createReadFileTool({ workspaceRoot }).execute({ path: "linked.txt" }, ctx)),
    ).toBe(REFUSAL);
    expect(
      await refusal(
        createWriteFileTool({ workspaceRoot }).execute({ path: "linked.txt", content: "x" }, ctx),
      ),
    ).toBe(REFUSAL);
    expect(
      await refusal(
        createEditFileTool({ workspaceRoot }).execute(
          { path: "linked.txt", old_text: "outside", new_text: "inside" },
          ctx,
        ),
      ),
    ).toBe(REFUSAL);
    expect(await readFile(outsideFile, "utf8")).toBe("outside secret\n");
  });

  it("a file back to one link is served again", async () => {
    await rm(outsideFile);
    const read = await createReadFileTool({ workspaceRoot: root }).execute(
      { path: "linked.txt" },
      createRecordingContext(),
    );
    expect(read.content).toEqual([
      { type: "text", text: "File: linked.txt (1 line)\n1\toutside secret" },
    ]);
  });
});
