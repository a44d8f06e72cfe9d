import { appendFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FixtureWorkspace, polyglotWorkspace } from "../../test/support/codebase-workspace.js";
import { mcpConfigSources } from "../mcp/config.js";
import { McpManager } from "../mcp/manager.js";
import { recordingLogger } from "../testing/mcp-servers.js";
import { createWriteFileTool } from "../tools/builtin/write-file.js";
import { CodebaseIndex } from "./codebase-index.js";
import { withIndexUpdates } from "./codebase-tools.js";

// The index as the server runs it: indexing in a worker thread, the watcher, the store on disk.

const open: Array<{ index: CodebaseIndex; ws?: FixtureWorkspace }> = [];

function indexOf(ws: FixtureWorkspace, watch = true): CodebaseIndex {
  const index = new CodebaseIndex({ workspaceRoot: ws.root, storeDir: ws.dataDir, watch });
  open.push({ index });
  return index;
}

function workspace(): FixtureWorkspace {
  const ws = polyglotWorkspace();
  open.push({ index: new CodebaseIndex({ workspaceRoot: ws.root, watch: false }), ws });
  return ws;
}

afterEach(async () => {
  for (const { index, ws } of open.splice(0)) {
    await index.close();
    ws?.dispose();
  }
});

// each index starts a worker thread that loads tsx and eleven grammars: seconds on a loaded machine
describe("CodebaseIndex", { timeout: 90_000 }, () => {
  it("sees a file written on disk a moment before the call, and forgets a deleted one", async () => {
    const ws = workspace();
    const index = indexOf(ws);
    await index.ready();
    ws.write("src/fresh.ts", "export function freshlyWrittenHelper(): number {\n  return 1;\n}\n");
    let symbols = await index.ready();
    expect(symbols.definitions("freshlyWrittenHelper")).toMatchObject([
      { path: "src/fresh.ts", line: 1, kind: "function" },
    ]);

    ws.write("src/fresh.ts", "export const renamedHelper = 2;\n");
    symbols = await index.ready();
    expect(symbols.definitions("freshlyWrittenHelper")).toEqual([]);
    expect(symbols.definitions("renamedHelper")).toHaveLength(1);

    ws.remove("src/users.ts");
    symbols = await index.ready();
    expect(symbols.definitions("UserRepository")).toEqual([]);
    expect(symbols.references("UserRepository").map((r) => r.path)).toEqual([
      "src/index.ts",
      "src/server/http-server.ts",
    ]);
  });

  it("sees outside edits while the MCP manager watches the workspace's config files (the app's start order)", async () => {
    const ws = workspace();
    // the server starts watching mcp_servers.json and .mcp.json (the workspace root) before any
    // codebase tool runs; the index then subscribes to the same directory
    const mcp = new McpManager({
      sources: mcpConfigSources(ws.root, {}),
      workspaceRoot: ws.root,
      env: {},
      logger: recordingLogger(),
    });
    await mcp.start();
    await mcp.watch();
    try {
      const index = indexOf(ws);
      await index.ready();
      ws.write("src/fresh.ts", "export function outsideEditorHelper(): number {\n  return 1;\n}\n");
      appendFileSync(
        path.join(ws.root, "src/users.ts"),
        "\nexport function appendedByAnEditor(): void {}\n",
      );
      const symbols = await index.ready();
      expect(symbols.definitions("outsideEditorHelper")).toMatchObject([
        { path: "src/fresh.ts", line: 1 },
      ]);
      expect(symbols.definitions("appendedByAnEditor")).toMatchObject([{ path: "src/users.ts" }]);
    } finally {
      await mcp.close();
    }
  });

  it("a watcher that cannot start (no inotify watches left): each call re-checks the tree", async () => {
    const ws = workspace();
    const errors: string[] = [];
    const index = new CodebaseIndex({
      workspaceRoot: ws.root,
      storeDir: ws.dataDir,
      // what inotify answers when max_user_watches is used up (cannot be caused safely here)
      watcher: async () => ({
        subscribe: async () => {
          throw new Error("inotify_add_watch on '/ws/src' failed: No space left on device");
        },
      }),
      onError: (err) => errors.push(err.message),
    });
    open.push({ index });
    await index.ready();
    expect(errors).toEqual([
      expect.stringContaining("the file watcher could not start (inotify_add_watch"),
    ]);
    ws.write("src/fresh.ts", "export const unwatchedButFound = 1;\n");
    appendFileSync(path.join(ws.root, "src/users.ts"), "\nexport class AppendedUnwatched {}\n");
    const symbols = await index.ready();
    expect(symbols.definitions("unwatchedButFound")).toMatchObject([{ path: "src/fresh.ts" }]);
    expect(symbols.definitions("AppendedUnwatched")).toMatchObject([{ path: "src/users.ts" }]);
    ws.remove("src/fresh.ts");
    expect((await index.ready()).definitions("unwatchedButFound")).toEqual([]);
    // no barrier directory was left behind
    expect(readdirSync(ws.dataDir).filter((f) => f.startsWith("barrier-"))).toEqual([]);
  });

  it("waits for a workspace batch the watcher hands over after the barrier's (CI finding of 28 Nov)", async () => {
    // @parcel/watcher hands one batch to each subscription from its debounce thread, in no set
    // order: under load the barrier's callback can run, and the call answer, before the
    // workspace's callback of the same batch. Here every workspace batch arrives 30 ms late.
    const ws = workspace();
    const index = new CodebaseIndex({
      workspaceRoot: ws.root,
      storeDir: ws.dataDir,
      watcher: async () => {
        const parcel = await import("@parcel/watcher");
        return {
          subscribe: (dir, callback, options) =>
            parcel.subscribe(
              dir,
              dir === ws.root
                ? (err, events) => void setTimeout(() => callback(err, events), 30)
                : callback,
              options,
            ),
        };
      },
    });
    open.push({ index });
    await index.ready();
    appendFileSync(path.join(ws.root, "src/users.ts"), "\nexport function appendedLate() {}\n");
    expect((await index.ready()).definitions("appendedLate")).toMatchObject([
      { path: "src/users.ts" },
    ]);
  });

  it("picks up a new directory and a changed .gitignore", async () => {
    const ws = workspace();
    const index = indexOf(ws);
    await index.ready();
    ws.write("lib/deep/nested/tool.py", "def nested_tool_function():\n    pass\n");
    expect((await index.ready()).definitions("nested_tool_function")).toHaveLength(1);
    ws.write(".gitignore", "generated/\n*.secret.ts\nlib/\n");
    expect((await index.ready()).definitions("nested_tool_function")).toEqual([]);
  });

  it("updates at once for Arbor's own writes, without the watcher", async () => {
    const ws = workspace();
    const index = indexOf(ws, false);
    await index.ready();
    const write = withIndexUpdates(createWriteFileTool({ workspaceRoot: ws.root }), index);
    await write.execute(
      { path: "src/added.ts", content: "export class AddedByTheAgent {}\n" },
      {
        toolCallId: "c",
        toolName: "write_file",
        signal: new AbortController().signal,
        onUpdate: () => undefined,
        onProgress: () => undefined,
      },
    );
    expect((await index.ready()).definitions("AddedByTheAgent")).toMatchObject([
      { path: "src/added.ts", kind: "class" },
    ]);
  });

  it("persists the index: a restart re-reads only changed files", async () => {
    const ws = workspace();
    const first = indexOf(ws, false);
    await first.ready();
    expect(first.status).toMatchObject({ files: 17, reread: 17, reused: 0 });
    await first.close();
    expect(readdirSync(ws.dataDir).filter((f) => f.endsWith(".idx"))).toHaveLength(1);

    const second = indexOf(ws, false);
    await second.ready();
    expect(second.status).toMatchObject({ files: 17, reread: 0, reused: 17 });
    expect(second.symbols.definitions("ShoppingCart")).toHaveLength(1);
    await second.close();

    ws.write("py/shop/cart.py", "class RenamedCart:\n    pass\n");
    // same content, new mtime: hashed, not parsed again (and not counted as re-read)
    ws.write("src/cli.ts", 'import { main } from "./index.js";\n\nmain();\n');
    const third = indexOf(ws, false);
    const symbols = await third.ready();
    expect(third.status).toMatchObject({ files: 17, reread: 1, reused: 16 });
    expect(symbols.definitions("ShoppingCart")).toEqual([]);
    expect(symbols.definitions("RenamedCart")[0]?.path).toBe(
      path.posix.join("py", "shop", "cart.py"),
    );
    await third.close();

    // the change was stored as a delta after the base: a fourth start reads both, re-reads none
    const fourth = indexOf(ws, false);
    const latest = await fourth.ready();
    expect(fourth.status).toMatchObject({ files: 17, reread: 0, reused: 17 });
    expect(latest.definitions("RenamedCart")).toHaveLength(1);
    expect(latest.definitions("ShoppingCart")).toEqual([]);
  });
});
