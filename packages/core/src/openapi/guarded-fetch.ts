import {
  type AddressLookup,
  assertReachable,
  type OpenApiNetworkPolicy,
} from "./network-policy.js";

// Every request the OpenAPI code makes (a tool call, a remote spec, a $ref URL) goes through
// here: the host is checked against the network policy (literal and resolved) before each hop,
// and redirects are followed by hand, only within the same origin (scheme, host and port). A
// redirect to another origin is not followed: the request ends with an error naming the
// redirect's host. So a credential never reaches a host other than the one it was configured
// for, and an allowed host cannot bounce the server to a forbidden or unknown one.

export const MAX_REDIRECTS = 5;

export interface GuardedFetchOptions {
  policy: OpenApiNetworkPolicy;
  fetch?: typeof globalThis.fetch;
  lookup?: AddressLookup;
}

/** Thrown for a redirect that leaves the origin (the message names the target's host). */
export class CrossOriginRedirectError extends Error {
  constructor(
    readonly from: string,
    readonly location: string,
    readonly status: number,
  ) {
    super(
      `${status} redirect to ${hostOf(location)} not followed: redirects are followed only within ${new URL(from).host}`,
    );
    this.name = "CrossOriginRedirectError";
  }
}

export async function guardedFetch(
  url: string,
  init: RequestInit,
  options: GuardedFetchOptions,
): Promise<{ response: Response; url: string }> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  let current = url;
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body;
  const headers = new Headers(init.headers);
  for (let hop = 0; ; hop++) {
    await assertReachable(current, options.policy, options.lookup);
    const response = await fetchFn(current, {
      ...init,
      method,
      headers,
      ...(body !== undefined && body !== null ? { body } : { body: null }),
      redirect: "manual",
    });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || location === null) {
      return { response, url: current };
    }
    let next: string;
    try {
      next = new URL(location, current).toString();
    } catch {
      return { response, url: current };
    }
    await response.body?.cancel().catch(() => undefined);
    if (new URL(next).origin !== new URL(current).origin) {
      throw new CrossOriginRedirectError(current, next, response.status);
    }
    if (hop + 1 >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    // what browsers do: 303 (and 301/302 after a POST) continue as a GET without the body
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === "POST")
    ) {
      if (method !== "HEAD") method = "GET";
      body = undefined;
      headers.delete("content-type");
    }
    current = next;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
