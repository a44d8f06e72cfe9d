import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as files from "@/app/api/sessions/[id]/files/route";
import * as instructions from "@/app/api/sessions/[id]/instructions/route";
import * as edit from "@/app/api/sessions/[id]/messages/[message_id]/edit/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as approve from "@/app/api/sessions/[id]/plan/approve/route";
import * as session from "@/app/api/sessions/[id]/route";
import {
  createSessionId,
  finalState,
  jsonRequest,
  params,
  readSse,
  useTestServer,
} from "./support";

// The endpoints the chat page uses for plan approval, edit & resend and the file picker, and the
// sequences in the session detail that a reloading page subscribes after.

const server = useTestServer();

const createSession = createSessionId;

async function send(id: string, text: string): Promise<string | undefined> {
  const response = await messages.POST(
    jsonRequest("POST", `/api/sessions/${id}/messages`, {
      session_id: id,
      payload: { type: "text", text },
    }),
    params({ id }),
  );
  expect(response.status).toBe(200);
  return finalState(await readSse(response));
}

interface Message {
  id: string;
  role: string;
  body: { message_type: string; text?: string };
}

async function messageList(id: string): Promise<Message[]> {
  const response = await messages.GET(
    jsonRequest("GET", `/api/sessions/${id}/messages`),
    params({ id }),
  );
  return ((await response.json()) as { messages: Message[] }).messages;
}

async function detail(id: string): Promise<Record<string, unknown>> {
  const response = await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe("POST /api/sessions/{id}/plan/approve", () => {
  it("switches to Act and carries the plan out in the stream", async () => {
    const id = await createSession({
      config: { agent_mode: "plan", approval_policy: { type: "auto_approve_all" } },
    });
    server.llm.enqueue({
      blocks: [
        {
          type: "toolCall",
          name: "present_plan",
          arguments: { summary: "Read the notes", steps: [{ title: "read" }] },
        },
      ],
    });
    expect(await send(id, "make a plan")).toBe("Idle");
    const plan = (await messageList(id)).find((m) => m.body.message_type === "plan");
    if (!plan) throw new Error("no plan message");

    server.llm.enqueue({ blocks: [{ type: "text", text: "Carried out." }] });
    const response = await approve.POST(
      jsonRequest("POST", `/api/sessions/${id}/plan/approve`, { message_id: plan.id }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(finalState(await readSse(response))).toBe("Idle");
    expect(await detail(id)).toMatchObject({ config: { agent_mode: "act" } });
    expect((await messageList(id)).at(-1)?.body).toMatchObject({ text: "Carried out." });
  });

  it("answers 400 naming message_id, and 404 for an unknown session", async () => {
    const id = await createSession();
    const bad = await approve.POST(
      jsonRequest("POST", `/api/sessions/${id}/plan/approve`, {}),
      params({ id }),
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ fields: [{ field: "message_id" }] });
    const missing = await approve.POST(
      jsonRequest("POST", "/api/sessions/nope/plan/approve", { message_id: "m" }),
      params({ id: "nope" }),
    );
    expect(missing.status).toBe(404);
  });
});

describe("ask_question in Act mode", () => {
  it("is offered to the model in act mode; its call becomes a Question and the next message answers it", async () => {
    const id = await createSession({ config: { agent_mode: "act" } });
    server.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            name: "ask_question",
            arguments: { question: "Which file?", choices: ["a.ts", "b.ts"] },
          },
        ],
      },
      { blocks: [{ type: "text", text: "Working on a.ts." }] },
    );
    expect(await send(id, "fix the bug")).toBe("AwaitingUserAnswer");
    const offered = (
      server.llm.requests[0]?.body as { tools?: Array<{ name: string }> } | undefined
    )?.tools;
    const names = (offered ?? []).map((t) => t.name);
    expect(names).toContain("ask_question");
    expect(names).toContain("write_file");
    expect(names).not.toContain("present_plan");
    const question = (await messageList(id)).at(-1);
    expect(question?.body).toMatchObject({ message_type: "question", question: "Which file?" });
    expect(await send(id, "a.ts")).toBe("Idle");
    expect((await detail(id)).config).toMatchObject({ agent_mode: "act" });
  });
});

describe("POST /api/sessions/{id}/messages/{message_id}/edit", () => {
  it("forks with the edited text and streams the new answer", async () => {
    const id = await createSession();
    server.llm.enqueue({ blocks: [{ type: "text", text: "first answer" }] });
    await send(id, "first question");
    server.llm.enqueue({ blocks: [{ type: "text", text: "second answer" }] });
    await send(id, "second question");
    const second = (await messageList(id)).find((m) => m.body.text === "second question");
    if (!second) throw new Error("no message");

    server.llm.enqueue({ blocks: [{ type: "text", text: "edited answer" }] });
    const message_id = second.id;
    const response = await edit.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages/${message_id}/edit`, {
        text: "second, edited",
      }),
      params({ id, message_id }),
    );
    expect(response.status).toBe(200);
    expect(finalState(await readSse(response))).toBe("Idle");
    const texts = (await messageList(id)).map((m) => m.body.text);
    expect(texts).toEqual(["first question", "first answer", "second, edited", "edited answer"]);
    const after = await detail(id);
    expect((after.branches as unknown[]).length).toBe(2);
  });

  it("answers 400 for an empty text", async () => {
    const id = await createSession();
    const response = await edit.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages/m1/edit`, { text: "" }),
      params({ id, message_id: "m1" }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ fields: [{ field: "text" }] });
  });
});

describe("GET /api/sessions/{id}/files", () => {
  function list(id: string, query = ""): Promise<Response> {
    return files.GET(jsonRequest("GET", `/api/sessions/${id}/files${query}`), params({ id }));
  }

  it("lists the workspace's files, filtered and capped", async () => {
    mkdirSync(join(server.workspace, "src"));
    mkdirSync(join(server.workspace, "node_modules", "dep"), { recursive: true });
    writeFileSync(join(server.workspace, "src", "app.ts"), "");
    writeFileSync(join(server.workspace, "node_modules", "dep", "index.js"), "");
    const id = await createSession();
    const all = await list(id);
    expect(all.status).toBe(200);
    expect(await all.json()).toEqual({ files: ["notes.txt", "src/app.ts"] });
    expect(await (await list(id, "?query=APP")).json()).toEqual({ files: ["src/app.ts"] });
    expect(await (await list(id, "?limit=1")).json()).toEqual({ files: ["notes.txt"] });
  });

  it("answers 400 for a bad limit and 404 for an unknown session", async () => {
    const id = await createSession();
    for (const limit of ["0", "abc", "100000"]) {
      const bad = await list(id, `?limit=${limit}`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ fields: [{ field: "limit" }] });
    }
    expect((await list("nope")).status).toBe(404);
  });
});

describe("GET /api/sessions/{id} sequences and title", () => {
  it("reports last_sequence and resume_from_sequence, and names the session from its first message", async () => {
    const id = await createSession();
    expect(await detail(id)).toMatchObject({
      title: "New session",
      last_sequence: 0,
      resume_from_sequence: 0,
    });
    server.llm.enqueue({ blocks: [{ type: "text", text: "hello" }] });
    await send(id, "Explain the build\nwith details");
    const after = await detail(id);
    expect(after.title).toBe("Explain the build");
    expect(after.last_sequence).toEqual(expect.any(Number));
    expect(after.last_sequence).toBeGreaterThan(0);
    expect(after.resume_from_sequence).toBe(after.last_sequence);
  });
});

describe("GET /api/sessions/{id}/instructions", () => {
  async function inUse(id: string) {
    const response = await instructions.GET(
      jsonRequest("GET", `/api/sessions/${id}/instructions`),
      params({ id }),
    );
    expect(response.status).toBe(200);
    return (await response.json()) as {
      text: string;
      files: Array<{ path: string; chars: number; truncated: boolean }>;
      max_chars: number;
    };
  }

  it("lists the instruction files in use, reads edits at once, and the model's prompt carries them", async () => {
    const id = await createSession();
    expect(await inUse(id)).toEqual({ text: "", files: [], max_chars: 16_000 });
    writeFileSync(join(server.workspace, "AGENTS.md"), "Answer in English.");
    mkdirSync(join(server.workspace, ".arbor"), { recursive: true });
    writeFileSync(join(server.workspace, ".arbor", "instructions.md"), "Cite files by path.");
    const listed = await inUse(id);
    expect(listed.files).toEqual([
      { path: "AGENTS.md", chars: 18, truncated: false },
      { path: ".arbor/instructions.md", chars: 19, truncated: false },
    ]);
    expect(listed.text).toBe(
      "From AGENTS.md:\nAnswer in English.\n\nFrom .arbor/instructions.md:\nCite files by path.",
    );
    server.llm.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    expect(await send(id, "hello")).toBe("Idle");
    expect(JSON.stringify(server.llm.requests[0]?.body)).toContain(
      "From AGENTS.md:\\nAnswer in English.",
    );
  });

  it("answers 404 for an unknown session", async () => {
    const response = await instructions.GET(
      jsonRequest("GET", "/api/sessions/nope/instructions"),
      params({ id: "nope" }),
    );
    expect(response.status).toBe(404);
  });
});
