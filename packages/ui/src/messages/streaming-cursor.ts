// The blinking cursor at the end of a message that is still streaming. Markdown renders blocks
// (<p>, <li>, <pre>), so a cursor appended after the rendered markdown sits on a line of its own
// under the text. This rehype plugin puts it inside the last block instead, after the last word.
//
// The hast types live in a package @arbor/ui does not depend on; these are the few fields used.
interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/** class names of the cursor; its data-streaming-cursor attribute is for tests */
export const STREAMING_CURSOR_CLASS =
  "ml-0.5 inline-block h-4 w-1.5 motion-safe:animate-pulse bg-zinc-400 align-middle dark:bg-zinc-500";

// Blocks the cursor may go into: those holding text, and the containers around them (a list's
// last item, a quote's last paragraph, a table's last cell, a code block's code). Inline elements
// (<strong>, <a>, inline <code>) stay closed: the cursor follows them, it does not join a link.
const BLOCKS = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "blockquote",
  "pre",
  "table",
  "thead",
  "tbody",
  "tr",
  "td",
  "th",
  "section",
]);

function isBlank(node: HastNode): boolean {
  return (node.type === "text" && !node.value?.trim()) || node.type === "comment";
}

function lastChild(node: HastNode): HastNode | undefined {
  return node.children?.findLast((child) => !isBlank(child));
}

function cursor(): HastNode {
  return {
    type: "element",
    tagName: "span",
    properties: {
      ariaHidden: "true",
      dataStreamingCursor: "",
      className: STREAMING_CURSOR_CLASS.split(" "),
    },
    children: [],
  };
}

// The deepest last block: from the root, keep stepping into the last child while it is a block
// (or the <code> of a code block). An empty message, or one ending in a rule or image, leaves
// the root, and the cursor goes after the last block as before.
function lastBlock(root: HastNode): HastNode {
  let node = root;
  for (;;) {
    const last = lastChild(node);
    const enter =
      last?.type === "element" &&
      (BLOCKS.has(last.tagName ?? "") || (node.tagName === "pre" && last.tagName === "code"));
    if (!enter) return node;
    node = last;
  }
}

function appendCursor(block: HastNode): void {
  const children = block.children ?? [];
  block.children = children;
  // Code ends in a newline (markdown adds one to every code block): a cursor after it would open
  // a new line, so it goes before.
  const last = children.at(-1);
  if (block.tagName === "code" && last?.type === "text" && last.value?.endsWith("\n")) {
    last.value = last.value.slice(0, -1);
    children.push(cursor(), { type: "text", value: "\n" });
    return;
  }
  children.push(cursor());
}

/** rehype plugin: adds the streaming cursor at the end of the last block */
export function rehypeStreamingCursor() {
  return (tree: HastNode) => {
    appendCursor(lastBlock(tree));
  };
}
