import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secretBoxOf } from "@arbor/db";
import { afterEach, describe, expect, it } from "vitest";
import { capturingLogger, type LogEntry } from "../../test/support";
import { ProviderKeys } from "./provider-keys";
import { type OpenedStore, openStore } from "./store";

// Several instances on one database (issue #27): each opens the kept keys with its own copy of
// the sealing key. One that shares it uses a key another instance kept, after a reread, with no
// restart; one with another key file cannot, says why, and keeps its model.

const KEY = "sk-ant-shared-between-instances-0123";
const opened: OpenedStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** An instance: its own ProviderKeys and data directory over the shared database. */
async function instance(dbDir: string, dataDir: string, logs: LogEntry[] = []) {
  let store = opened[0];
  if (store === undefined) {
    store = await openStore({ ARBOR_DATA_DIR: dbDir }, capturingLogger([]));
    opened.push(store);
  }
  return ProviderKeys.open({
    database: store.database,
    dataDir,
    env: {},
    logger: capturingLogger(logs),
  });
}

describe("ProviderKeys on several instances", () => {
  it("an instance sharing the key file uses a key another kept; one with another key file says why", async () => {
    const dbDir = mkdtempSync(join(tmpdir(), "arbor-keys-db-"));
    const first = await instance(dbDir, dbDir);
    const sharedDir = mkdtempSync(join(tmpdir(), "arbor-keys-shared-"));
    const otherDir = mkdtempSync(join(tmpdir(), "arbor-keys-other-"));
    expect(first.model().protocol).toBe("offline");

    await first.set("anthropic", KEY, { id: "u1", name: "Ada" });
    expect(first.model()).toMatchObject({ protocol: "anthropic-messages", apiKey: KEY });
    // the second instance shares the key file (copied, as docs/security.md says to)
    copyFileSync(join(dbDir, "provider-keys.key"), join(sharedDir, "provider-keys.key"));
    const second = await instance(dbDir, sharedDir);
    expect(second.model()).toMatchObject({ protocol: "anthropic-messages", apiKey: KEY });

    // a third has a key file of its own: no key, the reason on the provider's row and in the log
    const logs: LogEntry[] = [];
    secretBoxOf({ dataDir: otherDir, create: true });
    const third = await instance(dbDir, otherDir, logs);
    expect(third.model().protocol).toBe("offline");
    const row = third.view().providers.find((p) => p.provider === "anthropic");
    expect(row?.problem).toMatch(/sealed with another key/);
    expect(logs.map((l) => l.message)).toContain("a kept provider key does not open");
    expect(JSON.stringify(logs)).not.toContain(KEY);

    // removed on the first: the second rereads and goes back to the offline model
    expect(await first.remove("anthropic")).toBe("removed");
    await second.refresh();
    expect(second.model().protocol).toBe("offline");
    expect(second.secrets()).toEqual([]);
  });
});
