import { describe, expect, it } from "vitest";
import * as checkout from "@/app/api/sessions/[id]/branches/[branch_id]/checkout/route";
import * as branch from "@/app/api/sessions/[id]/branches/[branch_id]/route";
import * as branches from "@/app/api/sessions/[id]/branches/route";
import * as config from "@/app/api/sessions/[id]/config/route";
import * as interrupt from "@/app/api/sessions/[id]/interrupt/route";
import * as resolve from "@/app/api/sessions/[id]/merges/[merge_id]/resolve/route";
import * as merges from "@/app/api/sessions/[id]/merges/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as resume from "@/app/api/sessions/[id]/resume/route";
import * as sessions from "@/app/api/sessions/route";
import { finalState, jsonRequest, params, postText, readSse, useTestServer } from "./support";

// Branches, merges, config, interrupt and resume through their route handlers.

const server = useTestServer();

async function createSession(body: unknown = {}): Promise<{ id: string; main: string }> {
  const response = await sessions.POST(jsonRequest("POST", "/api/sessions", body), params({}));
  const created = (await response.json()) as { session_id: string; branch_id: string };
  return { id: created.session_id, main: created.branch_id };
}

async function messageIds(id: string, branchId?: string): Promise<string[]> {
  const query = branchId ? `?branch=${branchId}` : "";
  const response = await messages.GET(
    jsonRequest("GET", `/api/sessions/${id}/messages${query}`),
    params({ id }),
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as { messages: Array<{ id: string }> };
  return body.messages.map((m) => m.id);
}

describe("branches and merges", () => {
  it("forks, checks out, merges with append, and deletes a branch", async () => {
    const { id, main } = await createSession();
    server.llm.enqueue(
      { blocks: [{ type: "text", text: "first answer" }] },
      { blocks: [{ type: "text", text: "answer on the fork" }] },
    );
    await readSse(await postText(id, "first question"));
    const [, firstAnswer] = await messageIds(id);

    const forked = await branches.POST(
      jsonRequest("POST", `/api/sessions/${id}/branches`, {
        from_message_id: firstAnswer,
        name: "idea",
      }),
      params({ id }),
    );
    expect(forked.status).toBe(201);
    const fork = (await forked.json()) as { id: string; name: string; parent_branch_id: string };
    expect(fork).toMatchObject({ name: "idea", parent_branch_id: main });
    await readSse(await postText(id, "question on the fork"));
    expect(await messageIds(id, fork.id)).toHaveLength(4);
    expect(await messageIds(id, main)).toHaveLength(2);

    const switched = await checkout.POST(
      jsonRequest("POST", `/api/sessions/${id}/branches/${main}/checkout`),
      params({ id, branch_id: main }),
    );
    expect(switched.status).toBe(200);
    expect(await switched.json()).toMatchObject({ active_branch_id: main });

    const merged = await merges.POST(
      jsonRequest("POST", `/api/sessions/${id}/merges`, {
        source_branch_id: fork.id,
        target_branch_id: main,
        strategy: "append",
      }),
      params({ id }),
    );
    expect(merged.status).toBe(200);
    expect(await merged.json()).toMatchObject({ status: "merged", merge_id: expect.any(String) });
    expect(await messageIds(id, main)).toEqual(await messageIds(id, fork.id));

    const list = await branches.GET(
      jsonRequest("GET", `/api/sessions/${id}/branches`),
      params({ id }),
    );
    expect(((await list.json()) as { branches: unknown[] }).branches).toHaveLength(2);

    const deleted = await branch.DELETE(
      jsonRequest("DELETE", `/api/sessions/${id}/branches/${fork.id}`),
      params({ id, branch_id: fork.id }),
    );
    expect(deleted.status).toBe(204);
    // the merge's target keeps the merged messages and its record of the merge
    const after = (await (
      await branches.GET(jsonRequest("GET", `/api/sessions/${id}/branches`), params({ id }))
    ).json()) as { branches: Array<{ id: string; merged_from: Array<{ branch_id: string }> }> };
    expect(after.branches.map((b) => b.id)).toEqual([main]);
    expect(after.branches[0]?.merged_from.map((m) => m.branch_id)).toEqual([fork.id]);
    expect(await messageIds(id, main)).toHaveLength(4);
    const missing = await branch.DELETE(
      jsonRequest("DELETE", `/api/sessions/${id}/branches/${fork.id}`),
      params({ id, branch_id: fork.id }),
    );
    expect(missing.status).toBe(404);
  });

  it("answers 404 for an unknown branch or merge, 400 for a bad merge body", async () => {
    const { id, main } = await createSession();
    const unknownBranch = await checkout.POST(
      jsonRequest("POST", `/api/sessions/${id}/branches/nope/checkout`),
      params({ id, branch_id: "nope" }),
    );
    expect(unknownBranch.status).toBe(404);
    const unknownMerge = await resolve.POST(
      jsonRequest("POST", `/api/sessions/${id}/merges/nope/resolve`, { cancel: true }),
      params({ id, merge_id: "nope" }),
    );
    expect(unknownMerge.status).toBe(404);
    const sameBranch = await merges.POST(
      jsonRequest("POST", `/api/sessions/${id}/merges`, {
        source_branch_id: main,
        target_branch_id: main,
        strategy: "append",
      }),
      params({ id }),
    );
    expect(sameBranch.status).toBe(400);
    expect(await sameBranch.json()).toMatchObject({ fields: [{ field: "target_branch_id" }] });
  });

  it("answers 409 when the session is not Idle", async () => {
    server.llm.enqueue({
      blocks: [{ type: "toolCall", name: "read_file", arguments: { path: "notes.txt" } }],
    });
    const { id } = await createSession({ config: { approve_read_only: false } });
    const stream = await readSse(await postText(id, "read it"));
    expect(finalState(stream)).toBe("AwaitingToolApproval");
    const [first] = await messageIds(id);
    const refused = await branches.POST(
      jsonRequest("POST", `/api/sessions/${id}/branches`, { from_message_id: first }),
      params({ id }),
    );
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: "conflict" });
  });
});

describe("PATCH /api/sessions/{id}/branches/{branch_id}", () => {
  async function forked(id: string): Promise<string> {
    server.llm.enqueue({ blocks: [{ type: "text", text: "first answer" }] });
    await readSse(await postText(id, "first question"));
    const [first] = await messageIds(id);
    const response = await branches.POST(
      jsonRequest("POST", `/api/sessions/${id}/branches`, { from_message_id: first, name: "alt" }),
      params({ id }),
    );
    return ((await response.json()) as { id: string }).id;
  }
  function patch(id: string, branchId: string, body: unknown): Promise<Response> {
    return branch.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/branches/${branchId}`, body),
      params({ id, branch_id: branchId }),
    );
  }
  function systemOf(request: { body?: unknown } | undefined): string {
    return JSON.stringify((request?.body as { system?: unknown } | undefined)?.system ?? "");
  }

  it("renames a branch and gives it its own prompt and pipeline; the other branch is left alone and the model gets the prompt on that branch only", async () => {
    const { id, main } = await createSession({ config: { system_prompt: "Session prompt." } });
    const alt = await forked(id);
    const mainBefore = (
      (await (await branches.GET(jsonRequest("GET", "/x"), params({ id }))).json()) as {
        branches: Array<{ id: string }>;
      }
    ).branches.find((b) => b.id === main);

    const renamed = await patch(id, alt, {
      name: "pirate",
      system_prompt: "Talk like a pirate.",
      pipeline: { processors: ["file_reference", "tool_enhancement", "system_prompt"] },
    });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({
      id: alt,
      name: "pirate",
      system_prompt: "Talk like a pirate.",
      pipeline: { processors: ["file_reference", "tool_enhancement", "system_prompt"] },
    });
    const list = (await (await branches.GET(jsonRequest("GET", "/x"), params({ id }))).json()) as {
      branches: Array<{ id: string }>;
    };
    expect(list.branches.find((b) => b.id === main)).toEqual(mainBefore);

    server.llm.enqueue(
      { blocks: [{ type: "text", text: "Arr." }] },
      { blocks: [{ type: "text", text: "Plain." }] },
    );
    await readSse(await postText(id, "on the pirate branch"));
    expect(systemOf(server.llm.requests.at(-1))).toContain("Talk like a pirate.");
    await checkout.POST(jsonRequest("POST", "/x"), params({ id, branch_id: main }));
    await readSse(await postText(id, "on main"));
    expect(systemOf(server.llm.requests.at(-1))).toContain("Session prompt.");
    expect(systemOf(server.llm.requests.at(-1))).not.toContain("pirate");

    // null clears both overrides
    const cleared = await patch(id, alt, { system_prompt: null, pipeline: null });
    const body = (await cleared.json()) as Record<string, unknown>;
    expect(body).not.toHaveProperty("system_prompt");
    expect(body).not.toHaveProperty("pipeline");
  });

  it("answers 400 naming the field: a taken name, an unknown processor, an empty body; 404 for an unknown branch", async () => {
    const { id, main } = await createSession();
    const alt = await forked(id);
    const mainName = (
      (await (await branches.GET(jsonRequest("GET", "/x"), params({ id }))).json()) as {
        branches: Array<{ id: string; name: string }>;
      }
    ).branches.find((b) => b.id === main)!.name;
    const fields = async (response: Response) => {
      expect(response.status).toBe(400);
      return ((await response.json()) as { fields: Array<{ field: string }> }).fields.map(
        (f) => f.field,
      );
    };
    expect(await fields(await patch(id, alt, { name: mainName }))).toEqual(["name"]);
    expect(
      await fields(await patch(id, alt, { pipeline: { processors: ["file_reference", "nope"] } })),
    ).toEqual(["pipeline.processors"]);
    expect(await fields(await patch(id, alt, { pipeline: { processors: [] } }))).toEqual([
      "pipeline.processors",
    ]);
    expect(await fields(await patch(id, alt, {}))).toEqual(["(root)"]);
    expect((await patch(id, "nope", { name: "x" })).status).toBe(404);
    // deleting the active branch is refused: switch first
    const active = await branch.DELETE(
      jsonRequest("DELETE", `/api/sessions/${id}/branches/${alt}`),
      params({ id, branch_id: alt }),
    );
    expect(active.status).toBe(400);
  });
});

describe("config, interrupt and resume", () => {
  it("patches the config", async () => {
    const { id } = await createSession();
    const response = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, {
        agent_mode: "plan",
        approval_policy: { type: "auto_approve_all" },
      }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      config: { agent_mode: "plan", approval_policy: { type: "auto_approve_all" } },
    });
  });

  it("interrupts a streaming answer (Paused), then resumes it", async () => {
    server.llm.enqueue({
      blocks: [{ type: "text", text: "a slow answer that streams for a while ".repeat(10) }],
      chunkSize: 8,
      chunkDelayMs: 20,
    });
    const { id } = await createSession();
    const streaming = postText(id, "talk slowly");
    const response = await streaming;
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    let text = "";
    while (!text.includes("event: content_delta")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    const stopped = await interrupt.POST(
      jsonRequest("POST", `/api/sessions/${id}/interrupt`),
      params({ id }),
    );
    expect(stopped.status).toBe(200);
    expect(await stopped.json()).toMatchObject({
      interrupted: true,
      state: { type: "Paused" },
    });
    // the message stream ended with the operation
    while (!(await reader.read()).done) {
      // drain
    }

    const idle = await interrupt.POST(
      jsonRequest("POST", `/api/sessions/${id}/interrupt`),
      params({ id }),
    );
    expect(await idle.json()).toMatchObject({ interrupted: false });

    const resumed = await resume.POST(
      jsonRequest("POST", `/api/sessions/${id}/resume`),
      params({ id }),
    );
    expect(resumed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(finalState(await readSse(resumed))).toBe("Idle");
  });
});
