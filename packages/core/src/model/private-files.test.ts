import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../codebase/workspace-file.js";
import { ensurePrivateDir, securePrivateTree } from "./private-files.js";

// The data directory is its owner's only: folders 0700, files 0600 (issue #24).

let tmp: string | undefined;
afterEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

const modeOf = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe("private files", () => {
  it("makes a missing folder 0700 and tightens one that exists, whatever the umask", () => {
    tmp = mkdtempSync(path.join(tmpdir(), "arbor-private-"));
    const saved = process.umask(0);
    try {
      const fresh = path.join(tmp, "a", ".data");
      ensurePrivateDir(fresh);
      expect(modeOf(fresh)).toBe("700");
      const open = path.join(tmp, "open");
      mkdirSync(open, { mode: 0o777 });
      ensurePrivateDir(open);
      expect(modeOf(open)).toBe("700");
    } finally {
      process.umask(saved);
    }
  });

  it("tightens what an older version left (0755 folders, 0644 files), never through a link", () => {
    tmp = mkdtempSync(path.join(tmpdir(), "arbor-private-"));
    const data = path.join(tmp, ".data");
    const outside = path.join(tmp, "outside.txt");
    writeFileSync(outside, "not ours to change");
    chmodSync(outside, 0o644);
    mkdirSync(path.join(data, "tool-processes"), { recursive: true, mode: 0o755 });
    chmodSync(data, 0o755);
    chmodSync(path.join(data, "tool-processes"), 0o755);
    for (const file of ["arbor.db", "token", "tool-processes/123"]) {
      writeFileSync(path.join(data, file), "x");
      chmodSync(path.join(data, file), 0o644);
    }
    symlinkSync(outside, path.join(data, "link"));

    expect(securePrivateTree(data)).toEqual({ changed: 5, failed: [] });
    expect(modeOf(data)).toBe("700");
    expect(modeOf(path.join(data, "tool-processes"))).toBe("700");
    expect(modeOf(path.join(data, "arbor.db"))).toBe("600");
    expect(modeOf(path.join(data, "token"))).toBe("600");
    expect(modeOf(path.join(data, "tool-processes/123"))).toBe("600");
    expect(modeOf(outside)).toBe("644");
    expect(securePrivateTree(data)).toEqual({ changed: 0, failed: [] });
  });

  it("writes the data directory's own files (codebase index, fold memories) 0600 in 0700 folders", () => {
    tmp = mkdtempSync(path.join(tmpdir(), "arbor-private-"));
    const saved = process.umask(0);
    try {
      const file = path.join(tmp, "codebase-index", "ws-0123.idx");
      writeFileAtomic(file, "index");
      expect(modeOf(file)).toBe("600");
      expect(modeOf(path.dirname(file))).toBe("700");
    } finally {
      process.umask(saved);
    }
  });
});
