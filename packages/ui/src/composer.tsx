"use client";

import type { AgentMode, MessageDelivery } from "@arbor/core/browser";
// the browser-safe module alone: the package's index brings Node-only code into the bundle
import { refusedFileType } from "@arbor/core/browser";
import * as ToggleGroup from "@radix-ui/react-toggle-group";
import { useId, useRef, useState } from "react";
import {
  FilePicker,
  type FileSelection,
  type McpResourceSelection,
  type McpResourceTemplateSelection,
} from "./file-picker.js";
import { formatTokens, plural } from "./format.js";
import { fileSize as formatBytes } from "./messages/attachment-card.js";
import { fileReferenceLabel } from "./messages/file-reference-card.js";
import { PaperclipIcon } from "./paperclip-icon.js";
import { type McpPromptOption, matchingPrompts, PromptMenu } from "./prompt-menu.js";
import { isTypingTarget, matchesShortcut } from "./shortcuts.js";
import { buttonClass } from "./styles.js";
import { useHasKeyboard } from "./use-has-keyboard.js";
import { useWindowKeydown } from "./use-window-keydown.js";

/** A file the user uploaded, pasted or dropped, read in the browser (an `attachment` payload). */
export interface AttachmentSelection {
  name: string;
  mime_type: string;
  /** base64 */
  data: string;
  size: number;
}

/** The most bytes one attached file may have (the server's MAX_ATTACHMENT_BYTES). */
export const MAX_ATTACHMENT_BYTES = 2 * 1024 * 1024;

/** The most bytes the files of one message may have together (they go in one request). */
export const MAX_MESSAGE_ATTACHMENT_BYTES = 2 * 1024 * 1024;

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * Why a read file cannot be attached, in words for its owner; undefined when it can. The server
 * checks again (a 400 naming the field): this saves sending what it would refuse.
 */
export function refusedAttachment(file: AttachmentSelection): string | undefined {
  // the first 525 bytes are enough for every signature and a look for NULs
  const head = Uint8Array.from(atob(file.data.slice(0, 700)), (c) => c.charCodeAt(0));
  const refused = refusedFileType(file.mime_type, head);
  if (refused !== undefined) return `${file.name}: ${refused.message}`;
  const mime = file.mime_type.toLowerCase();
  if (mime.startsWith("image/") && !IMAGE_TYPES.has(mime)) {
    return `${file.name}: ${mime} images cannot be attached: attach png, jpeg, gif or webp.`;
  }
  if (!IMAGE_TYPES.has(mime) && head.includes(0)) {
    return `${file.name} looks binary: attach text files and png, jpeg, gif or webp images.`;
  }
  return undefined;
}

/** A file as an attachment: its bytes in base64 (FileReader, so large files do not block). */
export function readAttachment(file: File): Promise<AttachmentSelection> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.onload = () => {
      const url = String(reader.result);
      resolve({
        name: file.name || "pasted file",
        mime_type: file.type,
        data: url.slice(url.indexOf(",") + 1),
        size: file.size,
      });
    };
    reader.readAsDataURL(file);
  });
}

export interface ComposerSubmission {
  text: string;
  /**
   * uploaded, pasted or dropped files, in the order they were added: with a text they go in the
   * same message (one turn)
   */
  attachments: AttachmentSelection[];
  /** file references to send before the text, in the order they were added */
  files: FileSelection[];
  /** MCP resources to send before the text (after the files) */
  resources: McpResourceSelection[];
  /**
   * while the agent works: `steer` (Enter, Send) reaches it at its next step, `follow_up`
   * (Alt+Enter, Follow-up) after the run; the server ignores it when the agent is idle
   */
  delivery: MessageDelivery;
}

/** A message sent while the agent worked and not delivered yet (GET /messages `queued`). */
export interface QueuedMessageView {
  id: string;
  text: string;
  delivery: MessageDelivery;
}

export interface ComposerProps {
  onSend: (submission: ComposerSubmission) => void;
  /** the session is working: the Stop button shows and Esc interrupts */
  running: boolean;
  onStop: () => void;
  mode: AgentMode;
  onModeChange: (mode: AgentMode) => void;
  /** workspace-relative paths for the file picker */
  workspaceFiles: readonly string[];
  /** the MCP servers' resources, offered in the same picker */
  mcpResources?: readonly McpResourceSelection[];
  /** their resource templates, offered there too (the picker asks for their variables) */
  mcpResourceTemplates?: readonly McpResourceTemplateSelection[];
  /** the MCP servers' prompts, offered as `/` commands */
  mcpPrompts?: readonly McpPromptOption[];
  /**
   * sends the chosen prompt with its arguments (an `mcp_prompt` payload: each of its messages
   * joins the conversation as its own); the `/…` text is cleared
   */
  onUsePrompt?: (prompt: McpPromptOption, args: Record<string, string>) => void | Promise<void>;
  /** shown above the message box until each is delivered (it then appears in the transcript) */
  queued?: readonly QueuedMessageView[];
  disabled?: boolean;
  placeholder?: string;
  /** the context window and what is in it: a message that cannot fit is refused before sending */
  contextRoom?: { used: number; limit: number };
  /**
   * "Ask N ways" (a plain text, while nothing runs): the text goes to `onAskWays`, which calls
   * `clear` once it was sent (the box keeps the text if the user cancels)
   */
  onAskWays?: (text: string, clear: () => void) => void;
}

/** A paste longer than this becomes an attachment of the message instead of the box's text. */
export const PASTE_ATTACH_CHARS = 2_000;

/**
 * What an input event inserted into `before` to make `after` (dictation, autofill, a dropped
 * text): the part between their common start and end, and where it went. Linear in the length.
 */
export function insertedText(
  before: string,
  after: string,
): { at: number; inserted: string; removed: number } {
  let start = 0;
  const shortest = Math.min(before.length, after.length);
  while (start < shortest && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < shortest - start &&
    before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)
  )
    end++;
  return {
    at: start,
    inserted: after.slice(start, after.length - end),
    removed: before.length - end - start,
  };
}

/** About how many tokens a text is (4 characters a token): enough to tell it cannot fit. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Why a message of `tokens` cannot be sent into `room`; undefined when it fits. */
export function tooLargeReason(
  tokens: number,
  room: { used: number; limit: number } | undefined,
): string | undefined {
  if (room === undefined || tokens < room.limit) return undefined;
  return `This message is about ${formatTokens(tokens)} tokens; the context window holds ${formatTokens(room.limit)} (${formatTokens(room.used)} in use). Shorten it or send it in parts.`;
}

interface Paste {
  id: number;
  text: string;
}

const modeItemClass =
  "rounded-md px-2.5 py-1 text-xs font-medium text-zinc-600 focus-visible:outline-2 focus-visible:outline-sky-500 data-[state=on]:bg-white data-[state=on]:text-zinc-900 data-[state=on]:shadow-sm dark:text-zinc-300 dark:data-[state=on]:bg-zinc-700 dark:data-[state=on]:text-white";

export function Composer({
  onSend,
  running,
  onStop,
  mode,
  onModeChange,
  workspaceFiles,
  mcpResources = [],
  mcpResourceTemplates = [],
  mcpPrompts = [],
  onUsePrompt,
  queued = [],
  disabled = false,
  placeholder,
  onAskWays,
  contextRoom,
}: ComposerProps) {
  const [text, setText] = useState("");
  const [pastes, setPastes] = useState<Paste[]>([]);
  const [attachments, setAttachments] = useState<AttachmentSelection[]>([]);
  const [attachError, setAttachError] = useState<string | undefined>();
  const [dragging, setDragging] = useState(false);
  const upload = useRef<HTMLInputElement>(null);
  const attach = (list: Iterable<File>) => {
    setAttachError(undefined);
    for (const file of list) {
      if (file.size > MAX_ATTACHMENT_BYTES) {
        setAttachError(
          `${file.name} is ${formatBytes(file.size)}; a file may be at most ${formatBytes(MAX_ATTACHMENT_BYTES)}.`,
        );
        continue;
      }
      readAttachment(file).then(
        (read) => {
          const refused = refusedAttachment(read);
          if (refused !== undefined) {
            setAttachError(refused);
            return;
          }
          setAttachments((previous) => {
            const total = previous.reduce((sum, f) => sum + f.size, read.size);
            if (total <= MAX_MESSAGE_ATTACHMENT_BYTES) return [...previous, read];
            setAttachError(
              `${read.name} would make the files ${formatBytes(total)}; one message's files may be at most ${formatBytes(MAX_MESSAGE_ATTACHMENT_BYTES)} together. Send it in the next message.`,
            );
            return previous;
          });
        },
        (error: unknown) => setAttachError(error instanceof Error ? error.message : String(error)),
      );
    }
  };
  const pasteIds = useRef(0);
  const [files, setFiles] = useState<FileSelection[]>([]);
  const [resources, setResources] = useState<McpResourceSelection[]>([]);
  // the file picker, opened by its button or by typing `@` at the start of a word
  const [pickerOpen, setPickerOpen] = useState(false);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const inputId = useId();
  const fullText = [text.trim(), ...pastes.map((p) => p.text)].filter((t) => t !== "").join("\n\n");
  const tooLarge = tooLargeReason(estimateTokens(fullText), contextRoom);
  const canSend =
    !disabled &&
    tooLarge === undefined &&
    (fullText !== "" || files.length > 0 || resources.length > 0 || attachments.length > 0);

  const send = (delivery: MessageDelivery) => {
    if (!canSend) return;
    onSend({ text: fullText, attachments, files, resources, delivery });
    setText("");
    setPastes([]);
    setAttachments([]);
    setAttachError(undefined);
    setFiles([]);
    setResources([]);
  };
  // the keys are named only where there is a keyboard to press them (not on a touch screen)
  const hasKeyboard = useHasKeyboard();
  const hint =
    placeholder ??
    (running
      ? hasKeyboard
        ? "Steer the agent…  (Enter: at its next step, Alt+Enter: after the run)"
        : "Steer the agent…"
      : hasKeyboard
        ? "Message Arbor…  (Enter to send, Shift+Enter for a new line)"
        : "Message Arbor…");

  // Window-level shortcuts. Radix dialogs handle Esc first and mark it defaultPrevented, so Esc
  // closes an open dialog instead of also stopping the response.
  useWindowKeydown((event) => {
    if (event.defaultPrevented) return;
    if (matchesShortcut("stop", event) && running) {
      event.preventDefault();
      onStop();
    } else if (matchesShortcut("toggle_mode", event)) {
      event.preventDefault();
      onModeChange(mode === "plan" ? "act" : "plan");
    } else if (matchesShortcut("focus_composer", event) && !isTypingTarget(event.target)) {
      event.preventDefault();
      textarea.current?.focus();
    }
  });

  return (
    <form
      aria-label="Message composer"
      // at phone width, tighter (issue #27: the composer at rest took a fifth of a 390×844 screen)
      className="flex flex-col gap-2 rounded-xl border border-zinc-300 bg-white p-2 max-sm:gap-1 max-sm:p-1.5 dark:border-zinc-700 dark:bg-zinc-900"
      onSubmit={(event) => {
        event.preventDefault();
        send("steer");
      }}
      onDragOver={(event) => {
        if (!event.dataTransfer.types.includes("Files")) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        if (event.dataTransfer.files.length === 0) return;
        event.preventDefault();
        setDragging(false);
        attach(event.dataTransfer.files);
      }}
      data-dragging={dragging || undefined}
    >
      {queued.length > 0 && (
        <ul aria-label="Queued messages" className="flex flex-col gap-1">
          {queued.map((message) => (
            <li
              key={message.id}
              className="flex items-baseline gap-2 rounded-md bg-zinc-100 px-2 py-1 text-xs text-zinc-700 dark:bg-zinc-800 dark:text-zinc-200"
              title={
                message.delivery === "steer"
                  ? "Reaches the agent at its next step"
                  : "Sent when the run has ended"
              }
            >
              <span className="shrink-0 rounded-full bg-sky-100 px-1.5 font-medium text-sky-800 dark:bg-sky-950 dark:text-sky-200">
                {message.delivery === "steer" ? "Queued · steer" : "Queued · follow-up"}
              </span>
              <span className="min-w-0 truncate">{message.text}</span>
            </li>
          ))}
        </ul>
      )}
      {files.length > 0 && (
        <ul aria-label="Attached files" className="flex flex-wrap gap-1">
          {files.map((file, index) => {
            const label = fileReferenceLabel(file);
            return (
              <li
                // biome-ignore lint/suspicious/noArrayIndexKey: the same file may be attached twice with one label
                key={`${label}-${index}`}
                className="inline-flex items-center gap-1 rounded-full bg-zinc-100 px-2 py-0.5 font-mono text-xs dark:bg-zinc-800"
              >
                {label}
                <button
                  type="button"
                  aria-label={`Remove ${label}`}
                  className="rounded-full px-1 text-zinc-500 hover:text-zinc-900 dark:hover:text-white"
                  onClick={() => setFiles((previous) => previous.filter((_, i) => i !== index))}
                >
                  ✕
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {resources.length > 0 && (
        <ul aria-label="Attached resources" className="flex flex-wrap gap-1">
          {resources.map((resource, index) => (
            <li
              key={`${resource.server}:${resource.uri}`}
              title={resource.uri}
              className="inline-flex items-center gap-1 rounded-full bg-zinc-100 px-2 py-0.5 font-mono text-xs dark:bg-zinc-800"
            >
              {resource.server}:{resource.name}
              <button
                type="button"
                aria-label={`Remove ${resource.name}`}
                className="rounded-full px-1 text-zinc-500 hover:text-zinc-900 dark:hover:text-white"
                onClick={() => setResources((previous) => previous.filter((_, i) => i !== index))}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      {attachments.length > 0 && (
        <ul aria-label="Attachments" className="flex flex-wrap gap-1">
          {attachments.map((file, index) => (
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: the same file may be attached twice
              key={`${file.name}-${index}`}
              className="inline-flex items-center gap-1 rounded-full bg-zinc-100 px-2 py-0.5 text-xs dark:bg-zinc-800"
            >
              <PaperclipIcon />
              {file.name} · {formatBytes(file.size)}
              <button
                type="button"
                aria-label={`Remove ${file.name}`}
                className="rounded-full px-1 text-zinc-500 hover:text-zinc-900 dark:hover:text-white"
                onClick={() => setAttachments((previous) => previous.filter((_, i) => i !== index))}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      {attachError !== undefined && (
        <p role="alert" className="px-1 text-xs text-red-700 dark:text-red-400">
          {attachError}
        </p>
      )}
      {pastes.length > 0 && (
        <ul aria-label="Pasted texts" className="flex flex-col gap-1">
          {pastes.map((paste) => (
            <li
              key={paste.id}
              className="rounded-md border border-zinc-200 bg-zinc-50 px-2 py-1 text-xs dark:border-zinc-700 dark:bg-zinc-800"
            >
              <details>
                <summary className="cursor-pointer select-none">
                  Pasted text · {plural(paste.text.split("\n").length, "line")} ·{" "}
                  {paste.text.length.toLocaleString("en")} characters
                </summary>
                <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-words font-mono">
                  {paste.text}
                </pre>
              </details>
              <button
                type="button"
                aria-label="Remove the pasted text"
                className="mt-1 text-zinc-500 hover:text-zinc-900 dark:hover:text-white"
                onClick={() => setPastes((previous) => previous.filter((p) => p.id !== paste.id))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {onUsePrompt !== undefined && (
        <PromptMenu
          prompts={matchingPrompts(text, mcpPrompts)}
          onExpand={async (prompt, args) => {
            await onUsePrompt(prompt, args);
            setText("");
            textarea.current?.focus();
          }}
        />
      )}
      <label htmlFor={inputId} className="sr-only">
        Message
      </label>
      <textarea
        id={inputId}
        ref={textarea}
        rows={2}
        value={text}
        disabled={disabled}
        placeholder={hint}
        onChange={(event) => {
          const next = event.target.value;
          const caret = event.target.selectionStart ?? next.length;
          // one `@` typed at the start of a word opens the picker (an e-mail address does not)
          const typedAt =
            next.length === text.length + 1 &&
            next[caret - 1] === "@" &&
            (caret === 1 || /\s/.test(next[caret - 2] ?? ""));
          if (typedAt) {
            setText(next.slice(0, caret - 1) + next.slice(caret));
            setPickerOpen(true);
            return;
          }
          // a long text put in without a paste event (dictation, autofill, a dropped text) is
          // kept aside like a long paste: laid out in the box, it froze the tab
          if (next.length - text.length > PASTE_ATTACH_CHARS) {
            const { at, inserted, removed } = insertedText(text, next);
            if (inserted.length > PASTE_ATTACH_CHARS) {
              const id = ++pasteIds.current;
              setPastes((previous) => [...previous, { id, text: inserted }]);
              setText(text.slice(0, at) + text.slice(at + removed));
              return;
            }
          }
          setText(next);
        }}
        onPaste={(event) => {
          // a pasted file (a screenshot, a copied file) becomes an attachment
          if (event.clipboardData.files.length > 0) {
            event.preventDefault();
            attach(event.clipboardData.files);
            return;
          }
          const pasted = event.clipboardData.getData("text/plain");
          if (pasted.length <= PASTE_ATTACH_CHARS) return;
          // a long paste is kept beside the box (collapsible), not poured into it
          event.preventDefault();
          const id = ++pasteIds.current;
          setPastes((previous) => [...previous, { id, text: pasted }]);
        }}
        onKeyDown={(event) => {
          // IME composition uses Enter to commit a candidate; that Enter must not send.
          if (event.nativeEvent.isComposing) return;
          if (matchesShortcut("send", event)) {
            event.preventDefault();
            send("steer");
          } else if (matchesShortcut("send_follow_up", event)) {
            event.preventDefault();
            send("follow_up");
          }
        }}
        className="max-h-60 min-h-12 w-full resize-y max-sm:min-h-9 bg-transparent [field-sizing:content] px-1 text-sm text-zinc-900 placeholder:text-zinc-400 focus:outline-none dark:text-zinc-100"
      />
      {tooLarge !== undefined && (
        <p role="alert" className="px-1 text-xs text-red-700 dark:text-red-400">
          {tooLarge}
        </p>
      )}
      <div className="flex flex-wrap items-center gap-2 max-sm:gap-1 max-sm:[&_button]:px-2">
        <button
          type="button"
          className={buttonClass.ghost}
          disabled={disabled}
          title="Upload files (or paste, or drop them here): text files and png, jpeg, gif or webp images up to 2 MB (no archives or PDFs)"
          onClick={() => upload.current?.click()}
        >
          Upload
        </button>
        <input
          ref={upload}
          type="file"
          multiple
          aria-label="Files to upload"
          className="sr-only"
          tabIndex={-1}
          onChange={(event) => {
            if (event.target.files) attach([...event.target.files]);
            event.target.value = "";
          }}
        />
        <FilePicker
          files={workspaceFiles}
          disabled={disabled}
          onPick={(file) => setFiles((previous) => [...previous, file])}
          resources={mcpResources}
          resourceTemplates={mcpResourceTemplates}
          open={pickerOpen}
          onOpenChange={(open) => {
            setPickerOpen(open);
            if (!open) textarea.current?.focus();
          }}
          onPickResource={(resource) =>
            setResources((previous) =>
              previous.some((r) => r.server === resource.server && r.uri === resource.uri)
                ? previous
                : [...previous, resource],
            )
          }
        />
        <ToggleGroup.Root
          type="single"
          aria-label="Agent mode"
          title="Plan/Act (Ctrl/⌘+Shift+P)"
          value={mode}
          onValueChange={(next) => {
            if (next === "plan" || next === "act") onModeChange(next);
          }}
          className="inline-flex rounded-lg bg-zinc-100 p-0.5 dark:bg-zinc-800"
        >
          <ToggleGroup.Item value="plan" className={modeItemClass}>
            Plan
          </ToggleGroup.Item>
          <ToggleGroup.Item value="act" className={modeItemClass}>
            Act
          </ToggleGroup.Item>
        </ToggleGroup.Root>
        <div className="ml-auto flex gap-2 max-sm:gap-1">
          {running && (
            <button type="button" className={buttonClass.danger} onClick={onStop} title="Esc">
              Stop
            </button>
          )}
          {running && (
            <button
              type="button"
              className={buttonClass.secondary}
              disabled={!canSend}
              onClick={() => send("follow_up")}
              title="Send after the run (Alt+Enter)"
            >
              Follow-up
            </button>
          )}
          {onAskWays !== undefined && !running && (
            <button
              type="button"
              className={buttonClass.secondary}
              disabled={
                !canSend || files.length > 0 || resources.length > 0 || attachments.length > 0
              }
              onClick={() =>
                onAskWays(fullText, () => {
                  setText("");
                  setPastes([]);
                })
              }
              title="Send this text to several candidates at once and keep the best answer"
            >
              Ask N ways
            </button>
          )}
          <button
            type="submit"
            className={buttonClass.primary}
            disabled={!canSend}
            title={running ? "Steer: reaches the agent at its next step (Enter)" : "Enter"}
          >
            Send
          </button>
        </div>
      </div>
    </form>
  );
}
