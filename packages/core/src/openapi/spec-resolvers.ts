import { readFile, realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isInside } from "./config.js";
import { guardedFetch } from "./guarded-fetch.js";
import type { AddressLookup, OpenApiNetworkPolicy } from "./network-policy.js";

// Where swagger-parser may read a spec and its $refs from. Its own resolvers read any file the
// server can (a `$ref: /proc/self/environ` became a tool description) and fetch any URL; these
// replace them. A file is read only when it is inside `root` once symlinks are resolved
// (realpath), and not inside a hidden path (the data directory, which holds the token and the
// database); an absolute path elsewhere, a `..` escape or a symlink that points out is refused,
// naming the path. A URL is fetched only when the entry is allowed remote access, through
// guardedFetch (the network policy, same-origin redirects only).

export interface SpecReadPolicy {
  /** files are read only inside this directory (undefined: anywhere; library callers) */
  root?: string;
  /** never read, even inside `root` (the server's data directory) */
  hiddenPaths?: readonly string[];
  /** http(s) specs and $refs are fetched only when true */
  allowRemote: boolean;
  network: OpenApiNetworkPolicy;
  timeoutMs: number;
  fetch?: typeof globalThis.fetch;
  lookup?: AddressLookup;
}

/** The most a spec or a $ref'd document may weigh (a bigger answer is refused). */
export const MAX_SPEC_BYTES = 10 * 1024 * 1024;

interface ResolverFile {
  url: string;
}

/**
 * swagger-parser's `resolve` option: ours instead of its `file` and `http` resolvers. The parser
 * replaces a resolver's error by "Error reading file": each reason is also kept in `failures`,
 * for the caller to report instead.
 */
export function specResolvers(
  policy: SpecReadPolicy,
  failures: string[],
  inline?: { url: string; text: string },
) {
  const noted =
    <T>(read: (file: ResolverFile) => Promise<T>) =>
    async (file: ResolverFile): Promise<T> => {
      try {
        return await read(file);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
        throw error;
      }
    };
  return {
    file: false,
    http: false,
    ...(inline !== undefined
      ? {
          inline: {
            order: 0,
            canRead: (file: ResolverFile) => file.url === inline.url,
            read: async () => inline.text,
          },
        }
      : {}),
    workspaceFiles: {
      order: 1,
      canRead: (file: ResolverFile) => isFileReference(file.url),
      read: noted((file) => readConfined(filePathOf(file.url), policy)),
    },
    remote: {
      order: 2,
      canRead: (file: ResolverFile) => /^https?:\/\//i.test(file.url),
      read: noted((file) => fetchSpec(file.url, policy)),
    },
  };
}

/** A path or a file: URL (what the parser hands a file resolver); not http:, not other schemes. */
function isFileReference(url: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  return scheme === undefined || scheme === "file" || /^[a-z]$/i.test(scheme);
}

function filePathOf(url: string): string {
  if (/^file:/i.test(url)) return fileURLToPath(url.split("#")[0] as string);
  let path = url.split("#")[0] as string;
  try {
    path = decodeURIComponent(path);
  } catch {
    // not percent-encoded after all: read it as written
  }
  return resolve(path);
}

export async function readConfined(path: string, policy: SpecReadPolicy): Promise<Buffer> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
  if (policy.root !== undefined) {
    const root = await realpath(policy.root).catch(() => resolve(policy.root as string));
    const via = real !== path ? ` (it resolves to ${real})` : "";
    if (!isInside(root, real)) {
      throw new Error(
        `refused to read ${path}${via}: specs and $refs are read only inside the workspace`,
      );
    }
    for (const hidden of policy.hiddenPaths ?? []) {
      const hiddenReal = await realpath(hidden).catch(() => resolve(hidden));
      if (isInside(hiddenReal, real)) {
        throw new Error(`refused to read ${path}${via}: it is inside Arbor's data directory`);
      }
    }
  }
  return readFile(real);
}

async function fetchSpec(url: string, policy: SpecReadPolicy): Promise<Buffer> {
  if (!policy.allowRemote) {
    throw new Error(
      `${url} not fetched: this entry may not fetch URLs (remote specs and $refs need a trusted definition)`,
    );
  }
  const { response } = await guardedFetch(
    url,
    {
      headers: { accept: "application/json, application/yaml, text/yaml, */*;q=0.5" },
      signal: AbortSignal.timeout(policy.timeoutMs),
    },
    {
      policy: policy.network,
      ...(policy.fetch !== undefined ? { fetch: policy.fetch } : {}),
      ...(policy.lookup !== undefined ? { lookup: policy.lookup } : {}),
    },
  );
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`GET ${url} answered ${response.status}`);
  }
  return readAtMost(response, MAX_SPEC_BYTES, url);
}

/** The body, refused (and no longer read) once it passes `limit` bytes. */
async function readAtMost(response: Response, limit: number, url: string): Promise<Buffer> {
  const tooLarge = () => new Error(`${url} is larger than ${limit} bytes: not read`);
  if (Number(response.headers.get("content-length")) > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
