import { describe, expect, it } from "vitest";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import { createSessionId, jsonRequest, params, readSse, useTestServer } from "./support";

// Files attached to the conversation (issue #18): the `attachment` payload over HTTP.

const server = useTestServer();

// a 1×1 transparent PNG
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

function attach(id: string, file: { name: string; mime_type: string; data: string }) {
  return messages.POST(
    jsonRequest("POST", `/api/sessions/${id}/messages`, {
      session_id: id,
      payload: { type: "attachment", ...file },
    }),
    params({ id }),
  );
}

describe("attachments", () => {
  it("an image reaches the model as an image block; a text file as its text", async () => {
    const id = await createSessionId();
    server.llm.enqueue({ blocks: [{ type: "text", text: "A tiny transparent pixel." }] });
    const image = await attach(id, { name: "pixel.png", mime_type: "image/png", data: PNG });
    expect(image.status).toBe(200);
    const events = await readSse(image);
    expect(events.some((e) => e.event === "error")).toBe(false);
    const sent = JSON.stringify(server.llm.requests.at(-1)?.body);
    // the Anthropic wire format's image block
    expect(sent).toContain('"type":"image"');
    expect(sent).toContain('"media_type":"image/png"');
    expect(sent).toContain(PNG);
    expect(sent).toContain("Attached file pixel.png");

    server.llm.enqueue({ blocks: [{ type: "text", text: "Two notes." }] });
    const notes = Buffer.from("# Notes\n- buy milk\n- fix the parser\n").toString("base64");
    await (await attach(id, { name: "notes.md", mime_type: "text/markdown", data: notes })).text();
    expect(JSON.stringify(server.llm.requests.at(-1)?.body)).toContain("fix the parser");

    const list = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const stored = (await list.json()) as {
      messages: Array<{ body: { message_type: string; name?: string; size?: number } }>;
    };
    expect(
      stored.messages
        .filter((m) => m.body.message_type === "attachment")
        .map((m) => [m.body.name, m.body.size]),
    ).toEqual([
      ["pixel.png", 68],
      ["notes.md", 36],
    ]);
  });

  it("stores and shows the model a cleaned name: no path, no control characters, no leading dots", async () => {
    const id = await createSessionId();
    server.llm.enqueue({ blocks: [{ type: "text", text: "Seen." }] });
    const notes = Buffer.from("hello\n").toString("base64");
    const name = "../../.ssh/\u0000.\u202Eevil\nname.md";
    await (await attach(id, { name, mime_type: "text/markdown", data: notes })).text();
    const sent = JSON.stringify(server.llm.requests.at(-1)?.body);
    expect(sent).toContain("Attached file evilname.md (text/markdown");
    const list = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const stored = (await list.json()) as { messages: Array<{ body: { name?: string } }> };
    expect(stored.messages.map((m) => m.body.name).filter(Boolean)).toEqual(["evilname.md"]);
  });

  it("refuses what is not an image or text, and too much, naming the field; nothing is stored", async () => {
    const id = await createSessionId();
    const cases = [
      [{ name: "a.bmp", mime_type: "image/bmp", data: PNG }, "payload.mime_type"],
      [
        {
          name: "a.bin",
          mime_type: "application/octet-stream",
          data: Buffer.from([0xff, 0xfe, 0x00, 0x81]).toString("base64"),
        },
        "payload.data",
      ],
      [{ name: "x.txt", mime_type: "text/plain", data: "not base64!" }, "payload.data"],
      [
        {
          name: "big.txt",
          mime_type: "text/plain",
          data: Buffer.alloc(2 * 1024 * 1024 + 3, "a").toString("base64"),
        },
        "payload.data",
      ],
      [{ name: "", mime_type: "text/plain", data: "" }, "payload.name"],
      [{ name: "../..", mime_type: "text/plain", data: "" }, "payload.name"],
      // an SVG (script and all) sent as a PNG, and a PNG's bytes sent as a GIF
      [
        {
          name: "logo.png",
          mime_type: "image/png",
          data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString("base64"),
        },
        "payload.data",
      ],
      [{ name: "pixel.gif", mime_type: "image/gif", data: PNG }, "payload.data"],
      [
        {
          name: "nul.txt",
          mime_type: "text/plain",
          data: Buffer.from("a\u0000b").toString("base64"),
        },
        "payload.data",
      ],
    ] as const;
    for (const [file, field] of cases) {
      const response = await attach(id, file);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { fields: Array<{ field: string }> };
      expect(body.fields.map((f) => f.field)).toContain(field);
    }
    const list = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    expect(((await list.json()) as { messages: unknown[] }).messages).toEqual([]);
    expect(server.llm.requests).toHaveLength(0);
  });
});
