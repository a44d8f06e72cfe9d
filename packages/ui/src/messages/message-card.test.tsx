import type { ContextMessage } from "@arbor/core/browser";
import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { msg, text } from "../test-support/messages.js";
import { MessageCard } from "./message-card.js";
import { messagePreview } from "./preview.js";

const toolRequest = (): ContextMessage =>
  msg({
    message_type: "tool_request",
    text: "Let me look.",
    thinking: [],
    calls: [
      { id: "call-a", name: "read_file", arguments: { path: "a.ts" }, approval: "pending" },
      { id: "call-b", name: "write_file", arguments: { path: "b.ts" }, approval: "pending" },
      {
        id: "call-c",
        name: "list_dir",
        arguments: {},
        approval: "auto_approved",
        approval_note: "white list",
      },
    ],
  });

describe("who decided a tool call", () => {
  it('says "Approved by Ana" / "Denied by Ben"; a call decided by nobody keeps its note', () => {
    render(
      <MessageCard
        message={msg({
          message_type: "tool_request",
          text: "",
          thinking: [],
          calls: [
            {
              id: "c1",
              name: "write_file",
              arguments: {},
              approval: "approved",
              approval_note: "user",
              decided_by: { id: "u-ana", name: "Ana" },
            },
            {
              id: "c2",
              name: "bash",
              arguments: {},
              approval: "denied",
              approval_note: "user",
              decided_by: { id: "u-ben", name: "Ben" },
            },
            {
              id: "c3",
              name: "bash",
              arguments: {},
              approval: "denied",
              approval_note: "cut off",
              decided_by: null,
            },
          ],
        })}
      />,
    );
    expect(screen.getByText("Approved by Ana")).toBeDefined();
    expect(screen.getByText("Denied by Ben")).toBeDefined();
    expect(screen.getByText("Denied · cut off")).toBeDefined();
  });
});

describe("Text cards", () => {
  it("renders assistant markdown with highlighted code", () => {
    const { container } = render(
      <MessageCard message={text("# Title\n\n```ts\nconst x = 1;\n```\n\n| a |\n|---|\n| 1 |")} />,
    );
    expect(screen.getByRole("heading", { name: "Title" })).toBeDefined();
    expect(container.querySelector("code.hljs")).not.toBeNull();
    expect(screen.getByRole("table")).toBeDefined();
  });

  it("keeps the streamed text when the answer is marked done before its stored text arrives (issue #27)", () => {
    // the session rests (the card is "complete") while the row fetched mid-stream is still empty
    const done = text("", { status: "complete" });
    const { rerender } = render(<MessageCard message={done} streamingText="The whole answer." />);
    const card = screen.getByRole("article", { name: "Assistant message" });
    expect(card.textContent).toContain("The whole answer.");
    // the stored text wins once it is there
    rerender(
      <MessageCard message={text("The stored answer.")} streamingText="The whole answer." />,
    );
    expect(card.textContent).toContain("The stored answer.");
    expect(card.textContent).not.toContain("The whole answer.");
  });

  it("shows the files sent with a user's text in the same card, before the text", () => {
    render(
      <MessageCard
        message={msg(
          {
            message_type: "text",
            text: "what is this?",
            attachments: [
              {
                name: "notes.md",
                mime_type: "text/markdown",
                size: 5,
                content: [{ type: "text", text: "notes" }],
              },
            ],
          },
          { role: "user" },
        )}
      />,
    );
    const card = screen.getByRole("article", { name: "You message" });
    expect(within(card).getByRole("button", { name: "Attached file notes.md" })).toBeDefined();
    expect(card.textContent?.indexOf("notes.md")).toBeLessThan(
      card.textContent?.indexOf("what is this?") ?? 0,
    );
  });

  it("shows the streamed text while streaming and marks incomplete messages", () => {
    const streaming = text("", { status: "streaming" });
    const { rerender } = render(<MessageCard message={streaming} streamingText="Hello **wor" />);
    const card = screen.getByRole("article", { name: "Assistant message" });
    expect(card.textContent).toContain("Hello");
    expect(within(card).getByText("Streaming")).toBeDefined();
    rerender(<MessageCard message={streaming} streamingText={"First paragraph.\n\nHello **wor"} />);
    // the cursor ends the last line of text, inside its paragraph rather than below it
    const paragraphs = card.querySelectorAll("p");
    const last = paragraphs[paragraphs.length - 1]!;
    expect(last.textContent).toBe("Hello **wor");
    expect(last.lastElementChild?.hasAttribute("data-streaming-cursor")).toBe(true);
    expect(card.querySelectorAll("[data-streaming-cursor]")).toHaveLength(1);
    rerender(<MessageCard message={text("First paragraph.\n\nHello **world**")} />);
    expect(card.querySelector("[data-streaming-cursor]")).toBeNull();
    rerender(
      <MessageCard
        message={text("Hello", { status: "incomplete", meta: { error_message: "interrupted" } })}
      />,
    );
    expect(screen.getByText("Incomplete · interrupted")).toBeDefined();
  });
});

describe("message actions", () => {
  it("forks at the message and resends an edited user message", async () => {
    const user = userEvent.setup();
    const onFork = vi.fn();
    const onEditResend = vi.fn();
    const message = text("first try", { role: "user", id: "u1" });
    render(<MessageCard message={message} onFork={onFork} onEditResend={onEditResend} />);
    await user.click(screen.getByRole("button", { name: "Fork here" }));
    expect(onFork).toHaveBeenCalledWith("u1");
    await user.click(screen.getByRole("button", { name: "Edit & resend" }));
    const box = screen.getByRole("textbox", { name: "Edited message" });
    await user.clear(box);
    await user.type(box, "second try");
    await user.click(screen.getByRole("button", { name: "Resend as new branch" }));
    expect(onEditResend).toHaveBeenCalledWith("u1", "second try");
  });

  it("copies a finished message and each code block to the clipboard", async () => {
    const user = userEvent.setup();
    render(<MessageCard message={text("Run:\n\n```sh\nnpm test\n```")} />);
    await user.click(screen.getByRole("button", { name: "Copy code" }));
    expect(await navigator.clipboard.readText()).toBe("npm test\n");
    await user.click(screen.getByRole("button", { name: "Copy message" }));
    expect(await navigator.clipboard.readText()).toBe("Run:\n\n```sh\nnpm test\n```");
    expect(screen.getByRole("button", { name: "Copy message" }).textContent).toBe("Copied");
  });

  it("offers no message copy while the message streams", () => {
    render(<MessageCard message={text("", { status: "streaming" })} streamingText="par" />);
    expect(screen.queryByRole("button", { name: "Copy message" })).toBeNull();
  });

  it("offers no edit on assistant messages and no actions without callbacks", () => {
    render(<MessageCard message={text("hi")} onEditResend={vi.fn()} />);
    expect(screen.queryByRole("button", { name: "Edit & resend" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Fork here" })).toBeNull();
  });
});

describe("ToolRequest cards", () => {
  it("shows what an OpenAPI call will do: method, full URL, the credential's variable, place and host", () => {
    const request = msg({
      message_type: "tool_request",
      text: "",
      thinking: [],
      calls: [
        {
          id: "call-h",
          name: "getPetById",
          arguments: { petId: 2 },
          approval: "pending",
          preview: {
            kind: "http",
            method: "GET",
            url: "https://pets.example.com/v2/pet/2?key=[redacted]",
            credential: {
              env: "PETS_KEY",
              placement: "query",
              name: "key",
              host: "pets.example.com",
            },
          },
        },
        {
          id: "call-n",
          name: "listPets",
          arguments: {},
          approval: "pending",
          preview: { kind: "http", method: "POST", url: "https://pets.example.com/v2/pets" },
        },
      ],
    });
    render(<MessageCard message={request} onToolDecisions={vi.fn()} />);
    const card = within(screen.getByRole("listitem", { name: "Tool call getPetById" }));
    const preview = card.getByLabelText("Request of getPetById").textContent;
    expect(preview).toContain("GET https://pets.example.com/v2/pet/2?key=[redacted]");
    expect(preview).toContain("PETS_KEY in the query parameter key, sent to pets.example.com");
    const other = within(screen.getByRole("listitem", { name: "Tool call listPets" }));
    expect(other.getByLabelText("Request of listPets").textContent).toContain("Credentialnone");
    // a call whose tool describes nothing has no request line
    render(<MessageCard message={toolRequest()} onToolDecisions={vi.fn()} />);
    expect(screen.queryByLabelText("Request of read_file")).toBeNull();
  });

  it("sends approve, deny and always-allow with the right tool_call_id", async () => {
    const user = userEvent.setup();
    const onToolDecisions = vi.fn();
    render(<MessageCard message={toolRequest()} onToolDecisions={onToolDecisions} />);
    const read = screen.getByRole("listitem", { name: "Tool call read_file" });
    const write = screen.getByRole("listitem", { name: "Tool call write_file" });
    expect(
      within(read).getByRole("figure", { name: "Arguments of read_file" }).textContent,
    ).toContain("a.ts");
    await user.click(within(write).getByRole("button", { name: "Deny" }));
    expect(onToolDecisions).toHaveBeenLastCalledWith([
      { tool_call_id: "call-b", decision: "deny" },
    ]);
    // a decided call cannot be sent twice; the other one still can
    expect(within(write).getByRole("button", { name: "Approve" })).toHaveProperty("disabled", true);
    await user.click(within(read).getByRole("button", { name: "Always allow this tool" }));
    expect(onToolDecisions).toHaveBeenLastCalledWith([
      { tool_call_id: "call-a", decision: "approve", remember: true },
    ]);
    expect(onToolDecisions).toHaveBeenCalledTimes(2);
  });

  it("approves every pending call at once and shows settled statuses", async () => {
    const user = userEvent.setup();
    const onToolDecisions = vi.fn();
    render(<MessageCard message={toolRequest()} onToolDecisions={onToolDecisions} />);
    expect(screen.getByText("Auto-approved · white list")).toBeDefined();
    const listDir = screen.getByRole("listitem", { name: "Tool call list_dir" });
    expect(within(listDir).queryByRole("button", { name: "Approve" })).toBeNull();
    await user.click(screen.getByRole("button", { name: "Approve all 2" }));
    expect(onToolDecisions).toHaveBeenCalledWith([
      { tool_call_id: "call-a", decision: "approve" },
      { tool_call_id: "call-b", decision: "approve" },
    ]);
  });

  it("shows a running call's latest progress, and drops it once the result is in", () => {
    const request = toolRequest();
    const { rerender } = render(
      <MessageCard message={request} running toolProgress={{ "call-c": "indexing (2/3)" }} />,
    );
    const listDir = screen.getByRole("listitem", { name: "Tool call list_dir" });
    expect(within(listDir).getByRole("status", { name: "Progress of list_dir" }).textContent).toBe(
      "indexing (2/3)",
    );
    rerender(<MessageCard message={request} toolProgress={{ "call-c": "indexing (2/3)" }} />);
    expect(screen.queryByRole("status", { name: "Progress of list_dir" })).toBeNull();
  });

  it("shows each call from request to result in one row: running, then its result", async () => {
    const user = userEvent.setup();
    const request = toolRequest();
    const { rerender } = render(<MessageCard message={request} running />);
    const listDir = screen.getByRole("listitem", { name: "Tool call list_dir" });
    expect(listDir.dataset.result).toBe("running");
    expect(within(listDir).getByText("Running…")).toBeDefined();
    const results = new Map([
      [
        "call-c",
        {
          message_type: "tool_result" as const,
          request_id: request.id,
          tool_call_id: "call-c",
          tool_name: "list_dir",
          content: [{ type: "text" as const, text: "a.ts\nb.ts" }],
          status: "success" as const,
        },
      ],
    ]);
    rerender(<MessageCard message={request} running toolResults={results} />);
    const done = screen.getByRole("listitem", { name: "Tool call list_dir" });
    expect(done.dataset.result).toBe("success");
    expect(within(done).queryByText("Running…")).toBeNull();
    await user.click(within(done).getByRole("button", { name: "list_dir result" }));
    expect(done.textContent).toContain("a.ts");
    // the pending calls are not running: they wait for a decision
    const read = screen.getByRole("listitem", { name: "Tool call read_file" });
    expect(read.dataset.result).toBe("none");
  });

  it("is read-only without a decision callback", () => {
    render(<MessageCard message={toolRequest()} />);
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    expect(screen.getAllByText("Waiting for approval")).toHaveLength(2);
  });
});

describe("ToolResult cards", () => {
  const result = (status: "success" | "error", text: string) =>
    msg(
      {
        message_type: "tool_result",
        request_id: "m0",
        tool_call_id: "call-a",
        tool_name: "read_file",
        content: [{ type: "text", text }],
        status,
      },
      { role: "tool" },
    );

  it("a result that worked is collapsed until expanded", async () => {
    const user = userEvent.setup();
    render(<MessageCard message={result("success", "alpha")} />);
    const toggle = screen.getByRole("button", { name: "read_file result" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByText("alpha")).toBeNull();
    await user.click(toggle);
    expect(screen.getByText("alpha")).toBeDefined();
  });

  it("a failed call shows its error at once, marked, and can still be folded (issue #27)", async () => {
    const user = userEvent.setup();
    render(<MessageCard message={result("error", "ENOENT: no such file")} />);
    const toggle = screen.getByRole("button", { name: "read_file result (error)" });
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(screen.getByText("ENOENT: no such file")).toBeDefined();
    expect(screen.getByText("Error")).toBeDefined();
    await user.click(toggle);
    expect(screen.queryByText("ENOENT: no such file")).toBeNull();
  });
});

describe("Plan and Question cards", () => {
  it("approves a plan and switches to Act once", async () => {
    const user = userEvent.setup();
    const onApprovePlan = vi.fn();
    const plan = msg({
      message_type: "plan",
      summary: "Two steps.",
      steps: [{ title: "Read the file" }, { title: "Fix the bug", detail: "in parse()" }],
    });
    render(<MessageCard message={plan} onApprovePlan={onApprovePlan} />);
    const steps = screen.getByRole("list", { name: "Plan steps" });
    expect(within(steps).getAllByRole("listitem")).toHaveLength(2);
    const approve = screen.getByRole("button", { name: "Approve plan and switch to Act" });
    await user.click(approve);
    await user.click(approve);
    expect(onApprovePlan).toHaveBeenCalledTimes(1);
    expect(onApprovePlan).toHaveBeenCalledWith(plan.id);
  });

  it("answers a question with a choice", async () => {
    const user = userEvent.setup();
    const onAnswer = vi.fn();
    const question = msg({
      message_type: "question",
      question: "Which file?",
      choices: ["a.ts", "b.ts"],
      allow_free_text: true,
    });
    render(<MessageCard message={question} onAnswer={onAnswer} />);
    await user.click(screen.getByRole("button", { name: "b.ts" }));
    expect(onAnswer).toHaveBeenCalledWith(question.id, "b.ts");
    expect(screen.getByRole("button", { name: "a.ts" })).toHaveProperty("disabled", true);
  });

  it("answers a question with free text", async () => {
    const user = userEvent.setup();
    const onAnswer = vi.fn();
    const question = msg({
      message_type: "question",
      question: "Name?",
      choices: [],
      allow_free_text: true,
    });
    render(<MessageCard message={question} onAnswer={onAnswer} />);
    await user.type(screen.getByRole("textbox", { name: "Your answer" }), "Ada{Enter}");
    expect(onAnswer).toHaveBeenCalledWith(question.id, "Ada");
  });
});

describe("other cards", () => {
  it("renders file references with a range and expandable content", async () => {
    const user = userEvent.setup();
    render(
      <MessageCard
        message={msg(
          {
            message_type: "file_reference",
            path: "src/a.ts",
            range: { start_line: 2, end_line: 4 },
            resolved: {
              content: "line two",
              start_line: 2,
              end_line: 4,
              total_lines: 10,
              truncated: false,
            },
          },
          { role: "user" },
        )}
      />,
    );
    await user.click(screen.getByRole("button", { name: "File src/a.ts:2-4" }));
    expect(screen.getByText("line two")).toBeDefined();
  });

  it("renders MCP resources and system notices", () => {
    render(
      <>
        <MessageCard
          message={msg({
            message_type: "mcp_resource",
            server_name: "docs",
            resource_uri: "docs://intro",
            content: "hello",
            mime_type: "text/plain",
            retrieved_at: "2025-06-10T12:00:00Z",
          })}
        />
        <MessageCard
          message={msg(
            { message_type: "system_control", kind: "interrupted", text: "Stopped by you" },
            { role: "system" },
          )}
        />
      </>,
    );
    expect(screen.getByRole("button", { name: "Resource docs://intro" })).toBeDefined();
    expect(screen.getByRole("note").textContent).toBe("Interrupted: Stopped by you");
  });

  it("a notice that names its kind says it once (issue #27)", () => {
    render(
      <MessageCard
        message={msg(
          { message_type: "system_control", kind: "interrupted", text: "Interrupted by the user." },
          { role: "system" },
        )}
      />,
    );
    expect(screen.getByRole("note").textContent).toBe("Interrupted by the user.");
  });
});

describe("messagePreview", () => {
  it("summarizes each kind in one clipped line", () => {
    expect(messagePreview(text("a\n\nb"))).toBe("a b");
    expect(messagePreview(toolRequest())).toBe(
      "Let me look. · calls read_file, write_file, list_dir",
    );
    expect(messagePreview(text("x".repeat(200)), 10)).toBe(`${"x".repeat(9)}…`);
  });
});
