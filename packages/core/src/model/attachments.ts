import { refusedFileType } from "./file-types.js";
import { ATTACHMENT_IMAGE_TYPES, type BodyOf } from "./message-types.js";

// A file the user attaches to the conversation (upload, paste, drop), checked and turned into an
// `attachment` message body. Images (png, jpeg, gif, webp) stay base64 and reach the model as image
// blocks, and their bytes must be what their type says (an SVG sent as image/png is refused);
// anything else must be UTF-8 text without NULs, which the model reads as text; archives,
// compressed files and PDFs are refused by type or signature (file-types.ts). The name is
// cleaned (cleanAttachmentName). Pure: the payload schema (protocol/requests.ts) runs it, so a bad
// file is a 400 naming the field and nothing is stored.

/** The largest file one attachment may be, in bytes (its base64 fits the request body limit). */
export const MAX_ATTACHMENT_BYTES = 2 * 1024 * 1024;

/** The longest cleaned attachment name, in characters (the extension is kept when cut). */
export const MAX_ATTACHMENT_NAME_CHARS = 120;

export type AttachmentCheck =
  | { ok: true; body: BodyOf<"attachment"> }
  | { ok: false; field: "data" | "mime_type" | "name"; message: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type ImageType = (typeof ATTACHMENT_IMAGE_TYPES)[number];

/** The image type the bytes' magic number says, among those accepted; undefined for none. */
export function sniffImageType(bytes: Uint8Array): ImageType | undefined {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  const ascii = (at: number, text: string) =>
    [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (ascii(0, "GIF87a") || ascii(0, "GIF89a")) return "image/gif";
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "image/webp";
  return undefined;
}

// control characters (C0, DEL, C1), and the format characters that reorder or hide text
// (bidirectional overrides and isolates, zero-width marks, the BOM): "evil\u202Egnp.exe"
const UNPRINTABLE = /[\p{Cc}\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;

/**
 * A file name safe to store, show and put before the model: its last path segment only (no `/`
 * or `\\`, so never `..`), without control or direction-changing characters, without leading
 * dots or spaces (no hidden or `..` names), spaces collapsed, at most MAX_ATTACHMENT_NAME_CHARS
 * characters (cut in the middle of the stem, the extension kept). Empty when nothing readable is
 * left (the caller refuses the name).
 */
export function cleanAttachmentName(name: string): string {
  const segment = name.replace(UNPRINTABLE, "").split(/[/\\]/).at(-1) ?? "";
  const cleaned = segment
    .replace(/\s+/g, " ")
    .replace(/^[\s.]+/, "")
    .trimEnd();
  const chars = [...cleaned];
  if (chars.length <= MAX_ATTACHMENT_NAME_CHARS) return cleaned;
  const dot = cleaned.lastIndexOf(".");
  const extension = dot > 0 && cleaned.length - dot <= 16 ? [...cleaned.slice(dot)] : [];
  const stem = chars.slice(0, MAX_ATTACHMENT_NAME_CHARS - extension.length);
  return [...stem, ...extension].join("").trimEnd();
}

export function attachmentBody(file: {
  name: string;
  mime_type: string;
  data: string;
}): AttachmentCheck {
  const name = cleanAttachmentName(file.name);
  if (name === "") {
    return { ok: false, field: "name", message: "the name has no readable characters" };
  }
  if (file.data.length % 4 !== 0 || !BASE64.test(file.data)) {
    return { ok: false, field: "data", message: "not base64" };
  }
  const bytes = Buffer.from(file.data, "base64");
  if (bytes.length > MAX_ATTACHMENT_BYTES) {
    return {
      ok: false,
      field: "data",
      message: `the file is ${bytes.length} bytes; an attachment may be at most ${MAX_ATTACHMENT_BYTES}`,
    };
  }
  const mime = file.mime_type.trim().toLowerCase();
  // an archive or a PDF is refused by name, before its bytes could pass as text
  const refused = refusedFileType(mime, bytes);
  if (refused !== undefined) return { ok: false, field: refused.field, message: refused.message };
  const base = { message_type: "attachment" as const, name, size: bytes.length };
  if ((ATTACHMENT_IMAGE_TYPES as readonly string[]).includes(mime)) {
    const actual = sniffImageType(bytes);
    if (actual !== mime) {
      return {
        ok: false,
        field: "data",
        message: `the bytes are not ${mime} (${actual === undefined ? "they have no png, jpeg, gif or webp signature" : `they are ${actual}`})`,
      };
    }
    return {
      ok: true,
      body: {
        ...base,
        mime_type: mime,
        content: [{ type: "image", data: file.data, mimeType: mime }],
      },
    };
  }
  if (mime.startsWith("image/")) {
    return {
      ok: false,
      field: "mime_type",
      message: `${mime} images are not supported: attach png, jpeg, gif or webp`,
    };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return {
      ok: false,
      field: "data",
      message: "the file is neither an image (png, jpeg, gif, webp) nor UTF-8 text",
    };
  }
  if (text.includes("\u0000")) {
    return { ok: false, field: "data", message: "the file looks binary: attach text or an image" };
  }
  return {
    ok: true,
    body: { ...base, mime_type: mime || "text/plain", content: [{ type: "text", text }] },
  };
}

/**
 * The image blocks of messages (an imported session file) whose bytes are not what their type
 * says, or of a type no provider takes: path relative to the list, and why. Attachments, tool
 * results and the files a text carries hold image blocks; each is checked as an uploaded image is.
 */
export function mismatchedImages(
  messages: readonly { body: { message_type: string; content?: unknown } }[],
): Array<{ path: (string | number)[]; message: string }> {
  const out: Array<{ path: (string | number)[]; message: string }> = [];
  // the blocks to check, each with where it is: an attachment's or a tool result's content, and
  // the content of each file a text carries
  const contents: Array<{ at: (string | number)[]; content: unknown }> = [];
  for (const [i, { body }] of messages.entries()) {
    if (body.message_type === "attachment" || body.message_type === "tool_result") {
      contents.push({ at: [i, "body", "content"], content: body.content });
    } else if (body.message_type === "text") {
      const files = (body as { attachments?: unknown }).attachments;
      if (!Array.isArray(files)) continue;
      for (const [k, file] of files.entries()) {
        contents.push({
          at: [i, "body", "attachments", k, "content"],
          content: (file as { content?: unknown } | null)?.content,
        });
      }
    }
  }
  for (const { at, content } of contents) {
    if (!Array.isArray(content)) continue;
    for (const [j, block] of (content as Array<Record<string, unknown>>).entries()) {
      if (block.type !== "image") continue;
      const mime = String(block.mimeType ?? "");
      const data = typeof block.data === "string" ? block.data : "";
      const bytes = BASE64.test(data) ? Buffer.from(data, "base64") : Buffer.alloc(0);
      const actual = sniffImageType(bytes);
      if (actual === mime) continue;
      out.push({
        path: [...at, j, "data"],
        message: `the bytes are not ${mime || "an image"} (${actual === undefined ? "they have no png, jpeg, gif or webp signature" : `they are ${actual}`})`,
      });
    }
  }
  return out;
}
