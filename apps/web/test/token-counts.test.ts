import { describe, expect, it } from "vitest";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import {
  authedRequest,
  createSessionId,
  params,
  postText,
  readSse,
  useTestServer,
} from "./support";

// GET /messages context_usage.counted_by (issue #26 finding 10): after an answer the usage meter
// speaks the provider's tokens (its reported input usage); a session set to count by the
// estimate keeps Arbor's own figures.

const server = useTestServer();

async function usageOf(id: string): Promise<{ counted_by: string; total: number }> {
  const response = await messages.GET(
    authedRequest(`http://localhost/api/sessions/${id}/messages`),
    params({ id }),
  );
  return ((await response.json()) as { context_usage: { counted_by: string; total: number } })
    .context_usage;
}

describe("context_usage.counted_by", () => {
  it("estimate before any answer, the provider's figures after one", async () => {
    const id = await createSessionId();
    expect((await usageOf(id)).counted_by).toBe("estimate");
    server.llm.enqueue({ blocks: [{ type: "text", text: "noted" }] });
    await readSse(await postText(id, "Remember the number 4711, please."));
    expect((await usageOf(id)).counted_by).toBe("provider_usage");
  });

  it("optimization.token_counting estimate keeps Arbor's own figures", async () => {
    const id = await createSessionId({ config: { optimization: { token_counting: "estimate" } } });
    server.llm.enqueue({ blocks: [{ type: "text", text: "noted" }] });
    await readSse(await postText(id, "Remember the number 4711, please."));
    expect((await usageOf(id)).counted_by).toBe("estimate");
  });
});
