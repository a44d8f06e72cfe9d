// Loop numbers from what is stored. Loop ids read `{sessionId}.{configId}.{n}` (agent/loop-id.ts);
// a session's next n for a config is one more than the highest stored, so ids survive a restart
// and a new run never reuses (and overwrites) the record of an earlier one. One function for
// every store.

/** n of `{sessionId}.{configId}.{n}`; undefined for any other id. */
export function loopNumberOf(
  loopId: string,
  sessionId: string,
  configId: string,
): number | undefined {
  const prefix = `${sessionId}.${configId}.`;
  if (!loopId.startsWith(prefix)) return undefined;
  const rest = loopId.slice(prefix.length);
  return /^[1-9][0-9]{0,14}$/.test(rest) ? Number(rest) : undefined;
}

/** One more than the highest n among `loopIds` of this session and config; 1 when none. */
export function nextLoopNumberOf(
  loopIds: Iterable<string>,
  sessionId: string,
  configId: string,
): number {
  let highest = 0;
  for (const id of loopIds) {
    const n = loopNumberOf(id, sessionId, configId);
    if (n !== undefined && n > highest) highest = n;
  }
  return highest + 1;
}
