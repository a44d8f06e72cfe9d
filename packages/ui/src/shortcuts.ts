// The keyboard shortcuts: one list, used by the components that handle them and by the help sheet
// that lists them, so the two cannot disagree.

export type ShortcutId =
  | "send"
  | "send_follow_up"
  | "newline"
  | "stop"
  | "toggle_mode"
  | "help"
  | "focus_composer";

export interface Shortcut {
  id: ShortcutId;
  /** how the help sheet writes the keys */
  keys: string;
  description: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  {
    id: "send",
    keys: "Enter",
    description: "Send the message (while the agent works: steer it at its next step)",
  },
  {
    id: "send_follow_up",
    keys: "Alt+Enter",
    description: "While the agent works: send the message as a follow-up, after the run",
  },
  { id: "newline", keys: "Shift+Enter", description: "New line in the message" },
  { id: "stop", keys: "Esc", description: "Stop the running response" },
  { id: "toggle_mode", keys: "Ctrl/⌘+Shift+P", description: "Switch between Plan and Act" },
  { id: "focus_composer", keys: "/", description: "Focus the message box" },
  { id: "help", keys: "?", description: "Show keyboard shortcuts" },
];

/** The fields of a KeyboardEvent the matchers read (DOM and React events both have them). */
export interface KeyLike {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

export function matchesShortcut(id: ShortcutId, event: KeyLike): boolean {
  const mod = event.ctrlKey || event.metaKey;
  switch (id) {
    case "send":
      return event.key === "Enter" && !event.shiftKey && !mod && !event.altKey;
    case "send_follow_up":
      return event.key === "Enter" && event.altKey && !event.shiftKey && !mod;
    case "newline":
      return event.key === "Enter" && event.shiftKey;
    case "stop":
      return event.key === "Escape";
    case "toggle_mode":
      return mod && event.shiftKey && event.key.toLowerCase() === "p";
    case "focus_composer":
      return event.key === "/" && !mod && !event.altKey;
    case "help":
      return event.key === "?" && !mod && !event.altKey;
    default: {
      const unhandled: never = id;
      throw new Error(`unknown shortcut ${String(unhandled)}`);
    }
  }
}

/** Single-key shortcuts ("?", "/") must not fire while the user types into a field. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}
