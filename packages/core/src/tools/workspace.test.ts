import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "./tool.js";
import { fsError, Workspace } from "./workspace.js";

let base: string;
let root: string;
let outside: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-ws-")));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  await mkdir(path.join(root, "src"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "src", "a.txt"), "a");
  await writeFile(path.join(outside, "secret.txt"), "secret");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(ws: Workspace, input: string): Promise<ToolError> {
  const error = await ws.resolve(input).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe("Workspace.resolve", () => {
  it("resolves relative and absolute paths inside the root", async () => {
    const ws = new Workspace(root);
    expect(await ws.resolve("src/a.txt")).toEqual({
      absolute: path.join(root, "src", "a.txt"),
      relative: "src/a.txt",
    });
    expect((await ws.resolve(path.join(root, "src"))).relative).toBe("src");
    expect((await ws.resolve(".")).relative).toBe(".");
    expect((await ws.resolve("src/../src/a.txt")).relative).toBe("src/a.txt");
    // not-yet-existing paths are fine (write_file creates them)
    expect((await ws.resolve("new/dir/file.ts")).relative).toBe("new/dir/file.ts");
  });

  it("refuses `..` escapes, naming the path and the root", async () => {
    const error = await refusal(new Workspace(root), "../outside/secret.txt");
    expect(error.kind).toBe("failed");
    expect(error.message).toContain("'../outside/secret.txt'");
    expect(error.message).toContain(`'${root}'`);
    expect(error.message).toContain("outside the workspace root");
  });

  it("refuses absolute paths outside the root, and ~", async () => {
    const ws = new Workspace(root);
    expect((await refusal(ws, "/etc/passwd")).message).toContain("'/etc/passwd' is outside");
    expect((await refusal(ws, "~/.ssh/id_rsa")).message).toContain("outside the workspace root");
  });

  it("accepts a sibling whose name merely starts with the root's name or with ..", async () => {
    await mkdir(path.join(root, "..hidden"));
    const ws = new Workspace(root);
    expect((await ws.resolve("..hidden")).relative).toBe("..hidden");
    await mkdir(`${root}2`);
    expect((await refusal(ws, `${root}2`)).message).toContain("outside the workspace root");
  });

  it("refuses a symlink whose real path is outside, for existing and to-be-created files", async () => {
    await symlink(outside, path.join(root, "link"));
    const ws = new Workspace(root);
    const existing = await refusal(ws, "link/secret.txt");
    expect(existing.message).toContain("resolves through a symlink");
    expect(existing.message).toContain(path.join(outside, "secret.txt"));
    expect(existing.message).toContain(`'${root}'`);
    expect((await refusal(ws, "link/new/file.txt")).message).toContain(
      "outside the workspace root",
    );
  });

  it("refuses a dangling symlink that points outside", async () => {
    await symlink(path.join(outside, "not-yet.txt"), path.join(root, "dangling"));
    const error = await refusal(new Workspace(root), "dangling");
    expect(error.message).toContain(path.join(outside, "not-yet.txt"));
  });

  it("follows symlinks that stay inside and works when the root itself is reached via a symlink", async () => {
    await symlink(path.join(root, "src"), path.join(root, "alias"));
    await symlink(root, path.join(base, "root-link"));
    const ws = new Workspace(path.join(base, "root-link"));
    expect(await ws.resolve("alias/a.txt")).toEqual({
      absolute: path.join(root, "src", "a.txt"),
      relative: "src/a.txt",
    });
    expect((await ws.resolve(path.join(base, "root-link", "src"))).relative).toBe("src");
  });

  it("refuses a path over 4096 characters at once; one at the limit resolves in linear time", async () => {
    const ws = new Workspace(root);
    await ws.getRealRoot();
    for (const input of ["a/".repeat(50_000), "a".repeat(100_000), `src/${"../".repeat(30_000)}`]) {
      const started = performance.now();
      const error = await refusal(ws, input);
      expect(performance.now() - started).toBeLessThan(100);
      expect(error.message).toBe(
        `Path is too long (${input.length} characters; at most 4096 are accepted).`,
      );
    }
    // 2048 missing levels: one lstat finds the first missing one, the rest are appended
    const deep = "a/".repeat(2047).slice(0, -1);
    const started = performance.now();
    const resolved = await ws.resolve(deep);
    expect(performance.now() - started).toBeLessThan(100);
    expect(resolved.relative).toBe(deep);
  });

  it("resolves a missing tail below existing directories and symlinks inside", async () => {
    const ws = new Workspace(root);
    await symlink(path.join(root, "src"), path.join(root, "alias"));
    await symlink("../src/sub", path.join(root, "src", "loop-free"));
    expect(await ws.resolve("alias/new/file.txt")).toEqual({
      absolute: path.join(root, "src", "new", "file.txt"),
      relative: "src/new/file.txt",
    });
    // a dangling relative link inside, followed to where it would create the file
    expect((await ws.resolve("src/loop-free/x.txt")).relative).toBe("src/sub/x.txt");
    await symlink("self", path.join(root, "self"));
    expect((await refusal(ws, "self/x")).message).toMatch(
      /Too many levels of symbolic links|symbolic/,
    );
  });

  it("reports a missing workspace root clearly", async () => {
    const error = await refusal(new Workspace(path.join(base, "nope")), "x");
    expect(error.message).toContain("is not accessible");
  });
});

describe("fsError", () => {
  it("maps system error codes to short messages naming the path", () => {
    const withCode = (code: string) => Object.assign(new Error(`${code}: boom`), { code });
    expect(fsError(withCode("ENOENT"), "a.txt").message).toBe("File not found: a.txt");
    expect(fsError(withCode("EISDIR"), "src").message).toBe("Is a directory, not a file: src");
    expect(fsError(withCode("EACCES"), "x").message).toBe("Permission denied: x");
    expect(fsError(new Error("weird"), "x").message).toBe("I/O error on x: weird");
    const passthrough = ToolError.cancelled("stop");
    expect(fsError(passthrough, "x")).toBe(passthrough);
  });
});
