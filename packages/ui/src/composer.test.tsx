import type { AgentMode } from "@arbor/core/browser";
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import {
  Composer,
  type ComposerProps,
  insertedText,
  MAX_ATTACHMENT_BYTES,
  PASTE_ATTACH_CHARS,
} from "./composer.js";

function setup(overrides: Partial<ComposerProps> = {}) {
  const user = userEvent.setup();
  const props: ComposerProps = {
    onSend: vi.fn(),
    running: false,
    onStop: vi.fn(),
    mode: "act" as AgentMode,
    onModeChange: vi.fn(),
    workspaceFiles: ["src/a.ts"],
    ...overrides,
  };
  const view = render(<Composer {...props} />);
  return { user, props, view, box: screen.getByRole("textbox", { name: "Message" }) };
}

describe("Composer", () => {
  it("sends on Enter and inserts a newline on Shift+Enter", async () => {
    const { user, props, box } = setup();
    await user.type(box, "line one{Shift>}{Enter}{/Shift}line two");
    expect(props.onSend).not.toHaveBeenCalled();
    expect((box as HTMLTextAreaElement).value).toBe("line one\nline two");
    await user.type(box, "{Enter}");
    expect(props.onSend).toHaveBeenCalledWith({
      text: "line one\nline two",
      files: [],
      resources: [],
      attachments: [],
      delivery: "steer",
    });
    expect((box as HTMLTextAreaElement).value).toBe("");
  });

  it("Ask N ways hands over the text and clears it only when told", async () => {
    const onAskWays = vi.fn();
    const { user, props, box } = setup({ onAskWays });
    const ask = screen.getByRole("button", { name: "Ask N ways" });
    expect(ask).toHaveProperty("disabled", true);
    await user.type(box, "which is best?");
    await user.click(ask);
    expect(onAskWays).toHaveBeenCalledWith("which is best?", expect.any(Function));
    expect(props.onSend).not.toHaveBeenCalled();
    // cancelled: the text stays; sent: the caller clears it
    expect((box as HTMLTextAreaElement).value).toBe("which is best?");
    const clear = onAskWays.mock.calls[0]?.[1] as () => void;
    await act(async () => clear());
    expect((box as HTMLTextAreaElement).value).toBe("");
  });

  it("offers no Ask N ways while the agent works, nor without the callback", () => {
    setup({ onAskWays: vi.fn(), running: true });
    expect(screen.queryByRole("button", { name: "Ask N ways" })).toBeNull();
  });

  it("does not send an empty message", async () => {
    const { user, props, box } = setup();
    await user.type(box, "   {Enter}");
    expect(props.onSend).not.toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "Send" })).toHaveProperty("disabled", true);
  });

  it("sends attached files with the text", async () => {
    const { user, props, box } = setup();
    await user.click(screen.getByRole("button", { name: "Attach file" }));
    await user.click(screen.getByRole("option", { name: "src/a.ts" }));
    await user.type(screen.getByRole("textbox", { name: "Start line" }), "3");
    await user.click(screen.getByRole("button", { name: "Add file" }));
    expect(screen.getByRole("button", { name: "Remove src/a.ts:3" })).toBeDefined();
    await user.type(box, "explain{Enter}");
    expect(props.onSend).toHaveBeenCalledWith({
      text: "explain",
      files: [{ path: "src/a.ts", range: { start_line: 3, end_line: 3 } }],
      resources: [],
      attachments: [],
      delivery: "steer",
    });
  });

  it("offers MCP prompts as / commands, asks for their arguments and sends the prompt", async () => {
    const { user, props, box, view } = setup();
    const onUsePrompt = vi.fn(async (_prompt: unknown, _args: Record<string, string>) => {});
    view.rerender(
      <Composer
        {...props}
        mcpPrompts={[
          { server: "everything", name: "simple-prompt", arguments: [] },
          {
            server: "everything",
            name: "args-prompt",
            arguments: [{ name: "city", required: true }],
          },
        ]}
        onUsePrompt={onUsePrompt}
      />,
    );
    expect(screen.queryByRole("listbox", { name: "MCP prompts" })).toBeNull();
    await user.type(box, "/args");
    const menu = screen.getByRole("listbox", { name: "MCP prompts" });
    expect(within(menu).getAllByRole("option")).toHaveLength(1);
    await user.click(within(menu).getByRole("option"));
    const use = screen.getByRole("button", { name: "Use prompt" }) as HTMLButtonElement;
    expect(use.disabled).toBe(true);
    await user.type(screen.getByRole("textbox", { name: /city/ }), "Lisbon");
    await user.click(use);
    expect((box as HTMLTextAreaElement).value).toBe("");
    expect(props.onSend).not.toHaveBeenCalled();
    expect(onUsePrompt).toHaveBeenCalledWith(expect.objectContaining({ name: "args-prompt" }), {
      city: "Lisbon",
    });
  });

  it("offers MCP resources in the same picker and sends the chosen one", async () => {
    const { user, props, box, view } = setup();
    view.rerender(
      <Composer
        {...props}
        mcpResources={[
          { server: "docs", uri: "docs://intro.md", name: "intro.md" },
          { server: "docs", uri: "docs://faq.md", name: "faq.md" },
        ]}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Attach file" }));
    const list = screen.getByRole("listbox", { name: "MCP resources" });
    await user.click(within(list).getByRole("option", { name: "docs: faq.md" }));
    await user.click(screen.getByRole("button", { name: "Add resource" }));
    expect(screen.getByRole("list", { name: "Attached resources" }).textContent).toContain(
      "docs:faq.md",
    );
    await user.type(box, "summarize{Enter}");
    expect(props.onSend).toHaveBeenCalledWith({
      text: "summarize",
      files: [],
      resources: [{ server: "docs", uri: "docs://faq.md", name: "faq.md" }],
      attachments: [],
      delivery: "steer",
    });
  });

  it("opens the picker when @ starts a word, not inside an address; a template asks for its variables", async () => {
    const { user, props, box, view } = setup();
    view.rerender(
      <Composer
        {...props}
        mcpResourceTemplates={[
          { server: "docs", uriTemplate: "docs://pages/{page}", name: "Page by number" },
        ]}
      />,
    );
    await user.type(box, "mail me@x");
    expect(screen.queryByRole("dialog")).toBeNull();
    await user.type(box, " see @");
    expect(screen.getByRole("dialog", { name: "Add a workspace file" })).toBeDefined();
    const list = screen.getByRole("listbox", { name: "MCP resource templates" });
    await user.click(within(list).getByRole("option", { name: /Page by number/ }));
    const add = screen.getByRole("button", { name: "Add resource" }) as HTMLButtonElement;
    expect(add.disabled).toBe(true);
    await user.type(screen.getByRole("textbox", { name: "page" }), "7 & 8");
    await user.click(add);
    expect(screen.queryByRole("dialog")).toBeNull();
    // the `@` that opened the picker is not left in the text, and adding the resource did not
    // send the message (the picker's submit stays in the picker)
    expect((box as HTMLTextAreaElement).value).toBe("mail me@x see ");
    expect(props.onSend).not.toHaveBeenCalled();
    await user.type(box, "this{Enter}");
    expect(props.onSend).toHaveBeenCalledWith(
      expect.objectContaining({
        text: "mail me@x see this",
        resources: [{ server: "docs", uri: "docs://pages/7%20%26%208", name: "Page by number" }],
      }),
    );
  });

  it("shows Stop while running and stops on Esc", async () => {
    const { user, props, view } = setup();
    expect(screen.queryByRole("button", { name: "Stop" })).toBeNull();
    await user.keyboard("{Escape}");
    expect(props.onStop).not.toHaveBeenCalled();
    view.rerender(<Composer {...props} running />);
    await user.click(screen.getByRole("button", { name: "Stop" }));
    await user.keyboard("{Escape}");
    expect(props.onStop).toHaveBeenCalledTimes(2);
  });

  it("stays usable while running: Enter steers, Alt+Enter and Follow-up send after the run", async () => {
    const { user, props, box } = setup({ running: true });
    expect((box as HTMLTextAreaElement).disabled).toBe(false);
    expect(box.getAttribute("placeholder")).toMatch(/Alt\+Enter: after the run/);
    await user.type(box, "look at b.ts instead{Enter}");
    expect(props.onSend).toHaveBeenLastCalledWith({
      text: "look at b.ts instead",
      files: [],
      resources: [],
      attachments: [],
      delivery: "steer",
    });
    await user.type(box, "then run the tests{Alt>}{Enter}{/Alt}");
    expect(props.onSend).toHaveBeenLastCalledWith({
      text: "then run the tests",
      files: [],
      resources: [],
      attachments: [],
      delivery: "follow_up",
    });
    expect((box as HTMLTextAreaElement).value).toBe("");
    await user.type(box, "and commit");
    await user.click(screen.getByRole("button", { name: "Follow-up" }));
    expect(props.onSend).toHaveBeenLastCalledWith({
      text: "and commit",
      files: [],
      resources: [],
      attachments: [],
      delivery: "follow_up",
    });
    expect(props.onSend).toHaveBeenCalledTimes(3);
    // Stop is still there
    expect(screen.getByRole("button", { name: "Stop" })).toBeDefined();
  });

  it("offers Follow-up only while running", () => {
    setup();
    expect(screen.queryByRole("button", { name: "Follow-up" })).toBeNull();
  });

  it("shows the queued messages with how each is delivered, until they leave the list", () => {
    const { props, view } = setup({
      running: true,
      queued: [
        { id: "q1", text: "look at b.ts instead", delivery: "steer" },
        { id: "q2", text: "then run the tests", delivery: "follow_up" },
      ],
    });
    const list = screen.getByRole("list", { name: "Queued messages" });
    const items = [...list.querySelectorAll("li")].map((li) => li.textContent);
    expect(items).toEqual([
      "Queued · steerlook at b.ts instead",
      "Queued · follow-upthen run the tests",
    ]);
    view.rerender(
      <Composer
        {...props}
        queued={[{ id: "q2", text: "then run the tests", delivery: "follow_up" }]}
      />,
    );
    expect(screen.getByRole("list", { name: "Queued messages" }).textContent).not.toContain("b.ts");
    view.rerender(<Composer {...props} queued={[]} />);
    expect(screen.queryByRole("list", { name: "Queued messages" })).toBeNull();
  });

  it("lets Esc close an open dialog without stopping", async () => {
    const { user, props } = setup({ running: true });
    await user.click(screen.getByRole("button", { name: "Attach file" }));
    expect(screen.getByRole("dialog")).toBeDefined();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(props.onStop).not.toHaveBeenCalled();
  });

  it("toggles Plan/Act by click and by Ctrl/Cmd+Shift+P", async () => {
    const { user, props, view } = setup();
    expect(screen.getByRole("radio", { name: "Act" }).getAttribute("aria-checked")).toBe("true");
    await user.click(screen.getByRole("radio", { name: "Plan" }));
    expect(props.onModeChange).toHaveBeenLastCalledWith("plan");
    await user.keyboard("{Control>}{Shift>}P{/Shift}{/Control}");
    expect(props.onModeChange).toHaveBeenLastCalledWith("plan");
    view.rerender(<Composer {...props} mode="plan" />);
    await user.keyboard("{Meta>}{Shift>}p{/Shift}{/Meta}");
    expect(props.onModeChange).toHaveBeenLastCalledWith("act");
    expect(props.onModeChange).toHaveBeenCalledTimes(3);
  });

  it("focuses the message box on /", async () => {
    const { user, box } = setup();
    expect(document.activeElement).not.toBe(box);
    await user.keyboard("/");
    expect(document.activeElement).toBe(box);
    expect((box as HTMLTextAreaElement).value).toBe("");
  });

  it("keeps a long paste beside the box as a collapsible attachment, and sends it after the typed text", async () => {
    const { user, props, box } = setup();
    const long = `${"x".repeat(PASTE_ATTACH_CHARS)}\nlast line`;
    await user.click(box);
    await user.paste("short paste ");
    await user.paste(long);
    expect((box as HTMLTextAreaElement).value).toBe("short paste ");
    const pasted = screen.getByRole("list", { name: "Pasted texts" });
    expect(pasted.textContent).toContain("Pasted text · 2 lines · 2,010 characters");
    await user.type(box, "{Enter}");
    expect(props.onSend).toHaveBeenCalledWith(
      expect.objectContaining({ text: `short paste\n\n${long}` }),
    );
    expect(screen.queryByRole("list", { name: "Pasted texts" })).toBeNull();
  });

  it("a removed paste is not sent", async () => {
    const { user, props, box } = setup();
    await user.click(box);
    await user.paste("y".repeat(PASTE_ATTACH_CHARS + 1));
    await user.click(screen.getByRole("button", { name: "Remove the pasted text" }));
    expect(screen.getByRole("button", { name: "Send" })).toHaveProperty("disabled", true);
    await user.type(box, "only this{Enter}");
    expect(props.onSend).toHaveBeenCalledWith(expect.objectContaining({ text: "only this" }));
  });

  it("refuses a message that cannot fit the context window before sending, with the numbers", async () => {
    const { user, props, box } = setup({ contextRoom: { used: 1_500, limit: 1_000 } });
    await user.click(box);
    // ~1,250 tokens at 4 characters a token
    await user.paste("z".repeat(5_000));
    expect(screen.getByRole("alert").textContent).toBe(
      "This message is about 1.3k tokens; the context window holds 1k (1.5k in use). Shorten it or send it in parts.",
    );
    expect(screen.getByRole("button", { name: "Send" })).toHaveProperty("disabled", true);
    await user.type(box, "{Enter}");
    expect(props.onSend).not.toHaveBeenCalled();
    await user.click(screen.getByRole("button", { name: "Remove the pasted text" }));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("uploads files as attachments, sends them with the text, and refuses one over the limit", async () => {
    const { user, props, box } = setup();
    const note = new File(["hello notes"], "notes.md", { type: "text/markdown" });
    await user.upload(screen.getByLabelText("Files to upload"), note);
    const list = await screen.findByRole("list", { name: "Attachments" });
    expect(list.textContent).toContain("notes.md · 11 B");
    const big = new File([new Uint8Array(MAX_ATTACHMENT_BYTES + 1)], "huge.png", {
      type: "image/png",
    });
    await user.upload(screen.getByLabelText("Files to upload"), big);
    expect(screen.getByRole("alert").textContent).toBe(
      "huge.png is 2.0 MB; a file may be at most 2.0 MB.",
    );
    await user.type(box, "read it{Enter}");
    expect(props.onSend).toHaveBeenCalledWith(
      expect.objectContaining({
        text: "read it",
        attachments: [
          { name: "notes.md", mime_type: "text/markdown", data: btoa("hello notes"), size: 11 },
        ],
      }),
    );
    expect(screen.queryByRole("list", { name: "Attachments" })).toBeNull();
  });

  it("refuses a zip before sending, saying why and what may be attached (issue #27)", async () => {
    const { user, props, box } = setup();
    const zip = new File(["PK\u0003\u0004notes.txt fix the parser"], "notes.zip", {
      type: "application/zip",
    });
    await user.upload(screen.getByLabelText("Files to upload"), zip);
    expect((await screen.findByRole("alert")).textContent).toBe(
      "notes.zip: a zip archive cannot be attached: attach text files and png, jpeg, gif or webp images. Unpack it and attach the files inside.",
    );
    expect(screen.queryByRole("list", { name: "Attachments" })).toBeNull();
    // a binary file of no known type is refused too; a text file still goes
    await user.upload(
      screen.getByLabelText("Files to upload"),
      new File([new Uint8Array([1, 0, 2, 0])], "data.bin", { type: "" }),
    );
    expect((await screen.findByRole("alert")).textContent).toMatch(/^data\.bin looks binary/);
    await user.type(box, "hi{Enter}");
    expect(props.onSend).toHaveBeenCalledWith(expect.objectContaining({ attachments: [] }));
  });

  it("keeps a long text put in without a paste (dictation, autofill) aside as a chip, at once (issue #27)", () => {
    const { props, box } = setup();
    fireEvent.change(box, { target: { value: "ask: " } });
    const long = "w".repeat(430_000);
    const started = performance.now();
    fireEvent.change(box, { target: { value: `ask: ${long}` } });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((box as HTMLTextAreaElement).value).toBe("ask: ");
    expect(screen.getByRole("list", { name: "Pasted texts" }).textContent).toContain(
      "430,000 characters",
    );
    fireEvent.submit(box.closest("form") as HTMLFormElement);
    expect(props.onSend).toHaveBeenCalledWith(expect.objectContaining({ text: `ask:\n\n${long}` }));
  });

  it("insertedText finds what an input inserted, and what it replaced", () => {
    expect(insertedText("ab", "aXYb")).toEqual({ at: 1, inserted: "XY", removed: 0 });
    expect(insertedText("abc", "aZc")).toEqual({ at: 1, inserted: "Z", removed: 1 });
    expect(insertedText("", "new")).toEqual({ at: 0, inserted: "new", removed: 0 });
    expect(insertedText("aa", "aaaa")).toEqual({ at: 2, inserted: "aa", removed: 0 });
  });
});
