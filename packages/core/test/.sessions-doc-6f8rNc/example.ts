import {
  type Agent,
  childrenOf,
  type LoopRecord,
  LoopRecorder,
  listSessionIds,
  loadSession,
  rootLoops,
  saveSession,
} from "/work/wt-pricing/packages/core/src/index.ts";

const recorder = new LoopRecorder();

/** Asks the agent; after half an hour of quiet it starts a new session. Saves the session. */
export async function ask(agent: Agent, text: string, dir: string): Promise<void> {
  agent.checkAndRotate(30 * 60_000);
  for await (const event of agent.prompt(text)) recorder.onEvent(event);
  const session = recorder.getSession(agent.sessionId);
  if (session !== undefined) await saveSession(dir, session);
}

/** The newest saved session's loop tree, one line per loop. */
export async function newestTree(dir: string): Promise<string[]> {
  const [newest] = await listSessionIds(dir);
  if (newest === undefined) return [];
  const session = await loadSession(dir, newest);
  const lines: string[] = [];
  const visit = (loop: LoopRecord, depth: number): void => {
    lines.push(`${"  ".repeat(depth)}${loop.loopId} ${loop.status} ${loop.usage.totalTokens}`);
    for (const child of childrenOf(session, loop.loopId)) visit(child, depth + 1);
  };
  for (const root of rootLoops(session)) visit(root, 0);
  return lines;
}
