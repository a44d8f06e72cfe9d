import { describe, expect, it } from "vitest";
import { mcpPromptMessages, mcpPromptTexts } from "./prompt-messages.js";

const PIXEL = "iVBORw0KGgo=";
const AT = "2026-01-01T00:00:00.000Z";
const origin = { server: "docs", prompt: "review" };

describe("mcpPromptMessages", () => {
  it("makes each prompt message its own message, with its role and type", () => {
    const out = mcpPromptMessages(
      {
        messages: [
          { role: "user", content: { type: "text", text: "Review this." } },
          { role: "assistant", content: { type: "text", text: "Which part?" } },
          { role: "user", content: { type: "image", data: PIXEL, mimeType: "image/png" } },
          {
            role: "user",
            content: {
              type: "resource",
              resource: { uri: "docs://a.md", mimeType: "text/markdown", text: "# A" },
            },
          },
          {
            role: "user",
            content: { type: "resource_link", uri: "docs://b.md", name: "b.md" },
          },
          { role: "user", content: { type: "image", data: PIXEL, mimeType: "image/svg+xml" } },
          {
            role: "assistant",
            content: { type: "resource", resource: { uri: "docs://c.md", text: "C" } },
          },
        ],
      },
      origin,
      AT,
    );
    expect(out).toEqual([
      { role: "user", body: { message_type: "text", text: "Review this." } },
      { role: "assistant", body: { message_type: "text", text: "Which part?" } },
      {
        role: "user",
        body: {
          message_type: "attachment",
          name: "review (docs) image",
          mime_type: "image/png",
          size: 8,
          content: [{ type: "image", data: PIXEL, mimeType: "image/png" }],
        },
      },
      {
        role: "user",
        body: {
          message_type: "mcp_resource",
          server_name: "docs",
          resource_uri: "docs://a.md",
          content: "# A",
          mime_type: "text/markdown",
          retrieved_at: AT,
        },
      },
      { role: "user", body: { message_type: "text", text: "[resource link b.md <docs://b.md>]" } },
      { role: "user", body: { message_type: "text", text: "[image image/svg+xml, 8 bytes]" } },
      {
        role: "assistant",
        body: { message_type: "text", text: "[resource docs://c.md (unknown type)]\nC" },
      },
    ]);
  });

  it("gives the messages as text for the preview route", () => {
    expect(
      mcpPromptTexts({
        messages: [
          { role: "user", content: { type: "text", text: "Hi" } },
          { role: "assistant", content: { type: "image", data: PIXEL, mimeType: "image/png" } },
        ],
      }),
    ).toEqual([
      { role: "user", text: "Hi" },
      { role: "assistant", text: "[image image/png, 8 bytes]" },
    ]);
  });
});
