"use client";

// The first Tab stop of a page with much before its content (the chat: the header's tools and the
// session list): one link past them. Hidden until focused. It moves the focus itself (the target
// is focusable through tabIndex={-1}), so the next Tab goes on from the content in every browser.

export function SkipLink({ target, children }: { target: string; children: string }) {
  return (
    <a
      href={`#${target}`}
      className="sr-only z-50 rounded-md bg-sky-700 px-3 py-2 text-sm font-medium text-white focus:not-sr-only focus:fixed focus:left-2 focus:top-2"
      onClick={(event) => {
        const element = document.getElementById(target);
        if (element === null) return;
        event.preventDefault();
        element.focus();
        element.scrollIntoView({ block: "start" });
      }}
    >
      {children}
    </a>
  );
}
