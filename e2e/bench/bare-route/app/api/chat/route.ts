import { createAnthropic } from "@ai-sdk/anthropic";
import { streamText } from "ai";

// The web bench's baseline (e2e/bench/bare-route/README.md): the AI SDK's streamText on
// @ai-sdk/anthropic, pointed at the runtime's fake LLM server (BARE_FAKE_LLM_URL), streamed back
// as the SDK's UI message stream (SSE), with no sessions, no persistence and no auth. Bench-only:
// never part of the product.

const anthropic = createAnthropic({
  baseURL: `${process.env.BARE_FAKE_LLM_URL ?? "http://127.0.0.1:1"}/v1`,
  apiKey: "x",
});

export async function POST(request: Request): Promise<Response> {
  const body = (await request.json()) as { message?: unknown };
  if (typeof body.message !== "string") {
    return Response.json({ error: "message: expected a string" }, { status: 400 });
  }
  const result = streamText({
    model: anthropic("claude-test"),
    prompt: body.message,
    // what Arbor sends for this model; left unset, the SDK logs a warning on every request
    maxOutputTokens: 128_000,
  });
  // no-transform, as Arbor's own SSE (apps/web/lib/server/sse.ts): without it next start gzips
  // the stream, buffering chunks inside the compressor
  return result.toUIMessageStreamResponse({
    headers: { "cache-control": "no-cache, no-transform" },
  });
}

/** The bench's readiness probe. */
export function GET(): Response {
  return new Response("ready");
}
