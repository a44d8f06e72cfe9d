import type { InterruptResponse } from "@arbor/core";
import { handle, json, loadSession, readNoBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** Stops the running operation and answers once it has stopped (state Paused), so a resume can follow. */
export const POST = handle(
  "POST /api/sessions/{id}/interrupt",
  async (request, context: Context) => {
    const { id } = await context.params;
    await readNoBody(request);
    const session = await loadSession(await getRuntime(), id);
    let interrupted = false;
    // the events are already on the operation's own stream and /events; here we only wait
    for await (const _event of session.interrupt()) interrupted = true;
    const body: InterruptResponse = { interrupted, state: session.state };
    return json(body);
  },
);
