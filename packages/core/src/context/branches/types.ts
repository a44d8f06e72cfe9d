import type { ContextMessage } from "../../model/message-types.js";

// Shared inputs of the branch and merge functions. They are pure: the Session loads the pool and
// the branches, calls them, and persists what they return in one store write.

/** The session's message pool as a lookup; must not copy the pool. */
export type MessageLookup = (id: string) => ContextMessage | undefined;

/** Injected so results are reproducible in tests and ids stay unique per session. */
export interface IdsAndClock {
  newId: () => string;
  /** ISO-8601 timestamp */
  now: () => string;
}
