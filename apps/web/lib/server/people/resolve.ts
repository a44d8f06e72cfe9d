import { type Actor, installActor } from "./actor";

// The person behind a request (see actor.ts). The gate (request-gate.ts) has checked the
// credential before this runs.

/** The request's person. */
export async function requestActor(request: Request): Promise<Actor> {
  const address = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown";
  return installActor({ id: "owner", name: "Owner", email: null }, address);
}
