import { badRequest, HttpError, handle, loadSession } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";
import { sseResponse } from "@/lib/server/sse";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/**
 * The sequence to replay after: Last-Event-ID (a reconnecting EventSource) wins over ?after. It
 * must be an integer from 0 to the session's last sequence: anything else (negative, fractional,
 * ≥ 2^53, past the end: a stream from there would silently skip every live event up to it) is
 * answered 400 naming the field. Absent or empty: 0, the whole log.
 */
function afterSequence(request: Request, lastSequence: number): number {
  const header = request.headers.get("last-event-id");
  const query = new URL(request.url).searchParams.get("after");
  const [field, raw] = header !== null ? ["Last-Event-ID", header] : ["after", query];
  const value = raw?.trim() ?? "";
  if (value === "") return 0;
  const sequence = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(sequence) || sequence > lastSequence) {
    throw new HttpError(
      badRequest([
        {
          field,
          message: `expected an integer from 0 to the session's last event sequence (${lastSequence})`,
        },
      ]),
    );
  }
  return sequence;
}

/** Replays every stored event after the given sequence, then streams live ones until the client leaves. */
export const GET = handle("GET /api/sessions/{id}/events", async (request, context: Context) => {
  const { id } = await context.params;
  const session = await loadSession(await getRuntime(), id);
  const after = afterSequence(request, session.lastSequence);
  return sseResponse(session.events(after), { signal: request.signal });
});
