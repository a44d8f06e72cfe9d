import { createHash } from "node:crypto";

// The names the model sees for MCP tools: `mcp__<server>__<tool>`, valid for every provider
// (^[a-zA-Z0-9_-]{1,64}$). Other characters become "_". A name over 64 characters, or one that
// two tools would share after that (two servers "a.b" and "a_b", say), is cut and given a hash of
// its server and tool: the same configuration always gives the same names, whatever the order.

export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;
const HASH = 8;

function sanitize(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, "_");
}

function hashed(base: string, server: string, tool: string): string {
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, HASH);
  return `${base.slice(0, MAX - HASH - 1)}_${hash}`;
}

export interface ToolKey {
  server: string;
  tool: string;
}

/** The model name of each (server, tool), keyed `server\0tool`. */
export function modelToolNames(keys: readonly ToolKey[]): Map<string, string> {
  const bases = keys.map((k) => `mcp__${sanitize(k.server)}__${sanitize(k.tool)}`);
  const counts = new Map<string, number>();
  for (const base of bases) counts.set(base, (counts.get(base) ?? 0) + 1);
  const names = new Map<string, string>();
  keys.forEach((key, i) => {
    const base = bases[i] as string;
    const unique = base.length <= MAX && counts.get(base) === 1;
    names.set(`${key.server}\0${key.tool}`, unique ? base : hashed(base, key.server, key.tool));
  });
  return names;
}
