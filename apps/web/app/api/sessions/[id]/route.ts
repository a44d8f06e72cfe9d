import { PatchSessionRequestSchema } from "@arbor/core";
import {
  handle,
  json,
  loadSession,
  noContent,
  readBody,
  readNoBody,
  resultOf,
} from "@/lib/server/http";
import { sessionDetail } from "@/lib/server/results";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

export const GET = handle("GET /api/sessions/{id}", async (_request, context: Context) => {
  const { id } = await context.params;
  const session = await loadSession(await getRuntime(), id);
  return json(sessionDetail(session));
});

/** Renames the session; answers its detail with the new title. */
export const PATCH = handle("PATCH /api/sessions/{id}", async (request, context: Context) => {
  const { id } = await context.params;
  const arbor = await getRuntime();
  const session = await loadSession(arbor, id);
  const { title } = await readBody(request, PatchSessionRequestSchema);
  await resultOf(arbor, session.rename(title), { title });
  return json(sessionDetail(session));
});

/** Waits for the session's running operation to finish, then deletes it and all it holds. */
export const DELETE = handle("DELETE /api/sessions/{id}", async (request, context: Context) => {
  const { id } = await context.params;
  await readNoBody(request);
  const arbor = await getRuntime();
  await loadSession(arbor, id);
  await arbor.manager.delete(id);
  await arbor.people.store.forgetSession(id);
  return noContent();
});
