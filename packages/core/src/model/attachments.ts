import { ATTACHMENT_IMAGE_TYPES, type BodyOf } from "./message-types.js";

// A file the user attaches to the conversation (upload, paste, drop), checked and turned into an
// `attachment` message body. Images (png, jpeg, gif, webp) stay base64 and reach the model as image
// blocks; anything else must be UTF-8 text, which the model reads as text. Pure: the payload schema
// (protocol/requests.ts) runs it, so a bad file is a 400 naming the field and nothing is stored.

/** The largest file one attachment may be, in bytes (its base64 fits the request body limit). */
export const MAX_ATTACHMENT_BYTES = 2 * 1024 * 1024;

export type AttachmentCheck =
  | { ok: true; body: BodyOf<"attachment"> }
  | { ok: false; field: "data" | "mime_type"; message: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function attachmentBody(file: {
  name: string;
  mime_type: string;
  data: string;
}): AttachmentCheck {
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
  const base = { message_type: "attachment" as const, name: file.name, size: bytes.length };
  if ((ATTACHMENT_IMAGE_TYPES as readonly string[]).includes(mime)) {
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
