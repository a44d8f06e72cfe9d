"use client";

import { useSyncExternalStore } from "react";

// Whether the person likely has a physical keyboard: a fine pointer that can hover (a mouse or a
// trackpad) goes with one; a touch screen alone does not. Hints such as "Enter to send" are shown
// only then (issue #27: a phone showed keyboard shortcuts it cannot type).

const QUERY = "(hover: hover) and (pointer: fine)";

/** The query, where the browser can answer it (jsdom cannot: then a keyboard is assumed). */
function media(): MediaQueryList | undefined {
  return typeof window.matchMedia === "function" ? window.matchMedia(QUERY) : undefined;
}

function subscribe(onChange: () => void): () => void {
  const list = media();
  list?.addEventListener("change", onChange);
  return () => list?.removeEventListener("change", onChange);
}

/** True with a mouse or trackpad; false on a touch-only screen. The server render assumes one. */
export function useHasKeyboard(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => media()?.matches ?? true,
    () => true,
  );
}
