// Which files cannot be attachments, told by their type or by their first bytes: archives,
// compressed files, PDFs and office documents. Their bytes are not text the model can read, and
// a few of them (a zip of stored text files) can even pass as text. The composer refuses them
// before reading further, the server again (attachments.ts). Pure and browser-safe.

/** Types refused by name: archives, compressed files, documents that are binary containers. */
const REFUSED_TYPES: Readonly<Record<string, string>> = {
  "application/zip": "a zip archive",
  "application/x-zip-compressed": "a zip archive",
  "application/gzip": "a gzip file",
  "application/x-gzip": "a gzip file",
  "application/x-tar": "a tar archive",
  "application/x-7z-compressed": "a 7z archive",
  "application/vnd.rar": "a rar archive",
  "application/x-rar-compressed": "a rar archive",
  "application/x-bzip2": "a bzip2 file",
  "application/x-xz": "an xz file",
  "application/zstd": "a zstd file",
  "application/java-archive": "a jar archive",
  "application/pdf": "a PDF",
};

/** Signatures at the start of the bytes, and what they are. */
const SIGNATURES: ReadonlyArray<{ bytes: readonly number[]; at?: number; kind: string }> = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], kind: "a zip archive" },
  { bytes: [0x50, 0x4b, 0x05, 0x06], kind: "a zip archive" },
  { bytes: [0x50, 0x4b, 0x07, 0x08], kind: "a zip archive" },
  { bytes: [0x1f, 0x8b], kind: "a gzip file" },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], kind: "a 7z archive" },
  { bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], kind: "a rar archive" },
  { bytes: [0x42, 0x5a, 0x68], kind: "a bzip2 file" },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], kind: "an xz file" },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], kind: "a zstd file" },
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], kind: "a PDF" },
  { bytes: [0x75, 0x73, 0x74, 0x61, 0x72], at: 257, kind: "a tar archive" },
];

/** What an attachment accepts, in the words every refusal uses. */
export const ATTACHMENT_KINDS = "text files and png, jpeg, gif or webp images";

export type RefusedFile = { field: "mime_type" | "data"; kind: string; message: string };

/**
 * Why a file cannot be attached (its type or its first bytes say it is an archive, a compressed
 * file or a PDF); undefined when neither does. `bytes` may be only the file's first 512 bytes.
 */
export function refusedFileType(mimeType: string, bytes: Uint8Array): RefusedFile | undefined {
  const mime = mimeType.trim().toLowerCase();
  const byType = REFUSED_TYPES[mime];
  const bySignature = SIGNATURES.find(({ bytes: sig, at = 0 }) =>
    sig.every((b, i) => bytes[at + i] === b),
  )?.kind;
  const kind = bySignature ?? byType;
  if (kind === undefined) return undefined;
  const hint = kind.includes("archive") ? " Unpack it and attach the files inside." : "";
  return {
    field: bySignature !== undefined ? "data" : "mime_type",
    kind,
    message: `${kind} cannot be attached: attach ${ATTACHMENT_KINDS}.${hint}`,
  };
}
