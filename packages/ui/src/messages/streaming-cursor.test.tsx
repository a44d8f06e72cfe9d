import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { Markdown } from "./markdown.js";

function renderCursor(text: string) {
  const { container } = render(<Markdown text={text} cursor />);
  const cursors = container.querySelectorAll("[data-streaming-cursor]");
  expect(cursors).toHaveLength(1);
  return { container, cursor: cursors[0]!, parent: cursors[0]!.parentElement! };
}

describe("streaming cursor", () => {
  it("follows the last word inside the last paragraph", () => {
    const { container, cursor, parent } = renderCursor("First.\n\nHello **wor");
    const paragraphs = container.querySelectorAll("p");
    expect(parent).toBe(paragraphs[paragraphs.length - 1]);
    expect(parent.lastChild).toBe(cursor);
    expect(cursor.getAttribute("aria-hidden")).toBe("true");
    expect(cursor.className).toContain("animate-pulse");
  });

  it("goes after inline markup, not into it", () => {
    const { parent } = renderCursor("Read [the docs](https://example.com) and **this**");
    expect(parent.tagName).toBe("P");
  });

  it("goes into the last item of a list, and the last paragraph of a quote", () => {
    expect(renderCursor("- one\n- two").parent.textContent).toBe("two");
    expect(renderCursor("> quoted\n>\n> more").parent.tagName).toBe("P");
  });

  it("ends the last line of a code block, not a line below it", () => {
    const { parent, cursor } = renderCursor("```ts\nconst x = 1;\nconst y");
    expect(parent.tagName).toBe("CODE");
    expect(parent.parentElement?.tagName).toBe("PRE");
    // highlighting splits the code into spans; the cursor comes right after the last character
    expect(cursor.previousSibling?.textContent).toBe(" y");
    expect(cursor.nextSibling?.textContent).toBe("\n");
    expect(parent.lastChild).toBe(cursor.nextSibling);
  });

  it("still shows before any text has arrived", () => {
    const { container, parent } = renderCursor("");
    expect(parent).toBe(container.querySelector(".arbor-markdown"));
  });

  it("is absent unless asked for", () => {
    const { container } = render(<Markdown text="Hello" />);
    expect(container.querySelector("[data-streaming-cursor]")).toBeNull();
  });
});
