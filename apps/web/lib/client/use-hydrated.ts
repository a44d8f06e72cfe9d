"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False while the server's HTML is on screen without its scripts, true once React has hydrated.
 * A button whose work is done by a click handler stays disabled until then, so an early click
 * is not silently lost.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
