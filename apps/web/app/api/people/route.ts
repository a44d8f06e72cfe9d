import { handle, json } from "@/lib/server/http";
import { personWire } from "@/lib/server/people/wire";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Everyone of the install (admins). */
export const GET = handle("GET /api/people", async () => {
  const { people } = await getRuntime();
  return json({ people: (await people.store.people()).map(personWire) });
});
