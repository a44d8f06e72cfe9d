import { type Credential, gate, gateRequest, processGate, type Verdict } from "../request-gate";
import type { Actor } from "./actor";
import type { People } from "./people";

// Who a request is and whether it passes the gate: the one step proxy.ts (pages, requests
// without a body) and handle() (route handlers) both take. The runtime is reached through the
// function runtime.ts puts on globalThis: proxy.ts is bundled apart from the route handlers and
// must not load a second copy of the runtime's modules. What it needs of the runtime is written
// here (its people), not imported from runtime.ts, which imports this module (no import cycle).

/** The part of the runtime (runtime.ts) the gate and proxy.ts use. */
export interface SharedRuntime {
  readonly people: People;
}

const RUNTIME_GETTER = Symbol.for("arbor.web.getRuntime");
type Holder = { [RUNTIME_GETTER]?: () => Promise<SharedRuntime> };

/** Called by runtime.ts when it loads. */
export function shareRuntimeGetter(get: () => Promise<SharedRuntime>): void {
  (globalThis as Holder)[RUNTIME_GETTER] = get;
}

export function sharedRuntime(): Promise<SharedRuntime> {
  const get = (globalThis as Holder)[RUNTIME_GETTER];
  if (get === undefined) return Promise.reject(new Error("the runtime is not loaded yet"));
  return get();
}

export interface Admission {
  verdict: Verdict;
  /** the person, when the credential proved one */
  actor: Actor | undefined;
}

/** The client's address: Next sets x-forwarded-for to the socket's unless the client sent one. */
export function clientAddress(headers: Headers): string {
  return headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown";
}

export async function admit(request: Request, url: URL = new URL(request.url)): Promise<Admission> {
  const { config, limiter } = processGate();
  const gated = gateRequest(request, url);
  // the checks that need no database first: a wrong Host or a cross-site request asks nothing
  const early = gate(gated, config, limiter, "bearer");
  if (early.type === "refuse" && early.error === "forbidden")
    return { verdict: early, actor: undefined };
  const runtime = await sharedRuntime();
  const proved = await runtime.people.authenticate(request.headers, clientAddress(request.headers));
  const credential: Credential =
    typeof proved === "string" ? proved : proved.via === "session" ? "cookie" : "bearer";
  const verdict = gate(gated, config, limiter, credential);
  return { verdict, actor: typeof proved === "string" ? undefined : proved };
}
