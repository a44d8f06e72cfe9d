import { describe, expect, it } from "vitest";
import * as config from "@/app/api/sessions/[id]/config/route";
import { createSessionId, jsonRequest, params, postText, readSse, useTestServer } from "./support";

// PATCH /api/sessions/{id}/config {agent_role} (issue #26 finding 10): the Planner role can be
// chosen; its model requests carry the read-only tools only, in Act mode too.

const server = useTestServer();

function toolNames(request: { body?: unknown } | undefined): string[] {
  const tools = (request?.body as { tools?: Array<{ name?: string }> } | undefined)?.tools ?? [];
  return tools.map((t) => t.name ?? "");
}

describe("the agent role over HTTP", () => {
  it("Planner: read-only tools in Act mode; Actor again: every tool", async () => {
    const id = await createSessionId();
    const patch = (body: unknown) =>
      config.PATCH(jsonRequest("PATCH", `/api/sessions/${id}/config`, body), params({ id }));
    const planner = await patch({ agent_role: "planner" });
    expect(planner.status).toBe(200);
    expect(await planner.json()).toMatchObject({
      config: { agent_mode: "act", agent_role: "planner" },
    });
    server.llm.enqueue({ blocks: [{ type: "text", text: "looked" }] });
    await readSse(await postText(id, "look around"));
    const asPlanner = toolNames(server.llm.requests.at(-1));
    expect(asPlanner).toContain("read_file");
    expect(asPlanner).not.toContain("write_file");
    expect(asPlanner).not.toContain("bash");

    expect((await patch({ agent_role: "actor" })).status).toBe(200);
    server.llm.enqueue({ blocks: [{ type: "text", text: "acting" }] });
    await readSse(await postText(id, "now act"));
    expect(toolNames(server.llm.requests.at(-1))).toContain("write_file");
  });

  it("an unknown role is a 400 naming agent_role", async () => {
    const id = await createSessionId();
    const response = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, { agent_role: "boss" }),
      params({ id }),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { fields: Array<{ field: string }> };
    expect(body.fields.map((f) => f.field)).toEqual(["agent_role"]);
  });
});
