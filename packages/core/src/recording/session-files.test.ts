import { mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect, testModel } from "../../test/support/agent-fixtures.js";
import { Agent } from "../agent/agent.js";
import type { SessionLoopTree } from "../model/loop-records.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { LoopRecorder } from "./recorder.js";
import {
  deleteSession,
  listSessionIds,
  loadSession,
  loadSessionsForAgent,
  SessionFileError,
  saveSession,
} from "./session-files.js";

// REQ-216/217 (issue #26 finding 10): a file-based session store for library users without a
// database: `{dir}/{session_id}.json`, pretty-printed, one flat directory.

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "arbor-sessions-"));
}

/** A real recorded session: an Agent's run through the LoopRecorder. */
async function recorded(agentId?: string): Promise<SessionLoopTree> {
  const provider = new ScriptedProvider([{ blocks: [{ type: "text", text: "hello" }] }]);
  const agent = new Agent({ provider, model: testModel });
  const recorder = new LoopRecorder();
  for (const event of await collect(agent.prompt("hi"))) recorder.onEvent(event);
  const session = recorder.getSession(agent.sessionId);
  if (!session) throw new Error("nothing recorded");
  return agentId === undefined ? session : { ...session, agentId };
}

describe("session files", () => {
  it("saves and loads a session losslessly, as readable pretty-printed JSON", async () => {
    const dir = tempDir();
    const session = await recorded();
    await saveSession(dir, session);
    const file = join(dir, `${session.sessionId}.json`);
    const text = readFileSync(file, "utf8");
    expect(text).toContain('\n  "sessionId"');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(session)));
    expect(await loadSession(dir, session.sessionId)).toEqual(session);
    // saving again replaces the file, leaving no temporary file behind
    await saveSession(dir, session);
    expect(readdirSync(dir)).toEqual([`${session.sessionId}.json`]);
  });

  it("lists session ids newest first by modification time; other files are not sessions", async () => {
    const dir = tempDir();
    expect(await listSessionIds(join(dir, "missing"))).toEqual([]);
    const [a, b, c] = [await recorded(), await recorded(), await recorded()];
    for (const s of [a, b, c]) await saveSession(dir, s);
    writeFileSync(join(dir, "notes.txt"), "not a session");
    const at = (seconds: number) => new Date(1_700_000_000_000 + seconds * 1000);
    utimesSync(join(dir, `${a.sessionId}.json`), at(30), at(30));
    utimesSync(join(dir, `${b.sessionId}.json`), at(10), at(10));
    utimesSync(join(dir, `${c.sessionId}.json`), at(20), at(20));
    expect(await listSessionIds(dir)).toEqual([a.sessionId, c.sessionId, b.sessionId]);
  });

  it("loads the sessions of one agent only", async () => {
    const dir = tempDir();
    const mine = [await recorded("agent-a"), await recorded("agent-a")];
    const theirs = await recorded("agent-b");
    for (const s of [...mine, theirs]) await saveSession(dir, s);
    const loaded = await loadSessionsForAgent(dir, "agent-a");
    expect(loaded.map((s) => s.sessionId).sort()).toEqual(mine.map((s) => s.sessionId).sort());
    expect(await loadSessionsForAgent(dir, "agent-c")).toEqual([]);
  });

  it("deletes a session; a missing one is not_found", async () => {
    const dir = tempDir();
    const session = await recorded();
    await saveSession(dir, session);
    await deleteSession(dir, session.sessionId);
    expect(readdirSync(dir)).toEqual([]);
    await expect(deleteSession(dir, session.sessionId)).rejects.toMatchObject({
      kind: "not_found",
    });
    await expect(loadSession(dir, session.sessionId)).rejects.toBeInstanceOf(SessionFileError);
  });

  it("refuses ids that would leave the directory, and files that are not sessions", async () => {
    const dir = tempDir();
    for (const id of ["../x", "a/b", "..", "", "a\\b"]) {
      await expect(loadSession(dir, id)).rejects.toMatchObject({ kind: "invalid_id" });
      await expect(deleteSession(dir, id)).rejects.toMatchObject({ kind: "invalid_id" });
    }
    const session = await recorded();
    await expect(saveSession(dir, { ...session, sessionId: "../escape" })).rejects.toMatchObject({
      kind: "invalid_id",
    });
    writeFileSync(join(dir, "broken.json"), '{"sessionId": 3}');
    await expect(loadSession(dir, "broken")).rejects.toMatchObject({ kind: "invalid_file" });
    await expect(loadSessionsForAgent(dir, "x")).rejects.toMatchObject({ kind: "invalid_file" });
  });
});
