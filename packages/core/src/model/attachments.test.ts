import { describe, expect, it } from "vitest";
import {
  attachmentBody,
  cleanAttachmentName,
  MAX_ATTACHMENT_NAME_CHARS,
  mismatchedImages,
  sniffImageType,
} from "./attachments.js";
import { refusedFileType } from "./file-types.js";

// An attachment's bytes must be what its type says, and its name is cleaned (issue #24).

const b64 = (bytes: number[] | string) =>
  Buffer.from(typeof bytes === "string" ? bytes : Uint8Array.from(bytes)).toString("base64");

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];
const JPEG = [0xff, 0xd8, 0xff, 0xe0, 0, 16];
const GIF = [..."GIF89a"].map((c) => c.charCodeAt(0)).concat([1, 0, 1, 0]);
const WEBP = [..."RIFF\u0024\u0000\u0000\u0000WEBPVP8 "].map((c) => c.charCodeAt(0));
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';

describe("attachment images are checked against their bytes", () => {
  it("knows png, jpeg, gif and webp by their magic numbers", () => {
    expect(sniffImageType(Uint8Array.from(PNG))).toBe("image/png");
    expect(sniffImageType(Uint8Array.from(JPEG))).toBe("image/jpeg");
    expect(sniffImageType(Uint8Array.from(GIF))).toBe("image/gif");
    expect(sniffImageType(Uint8Array.from(WEBP))).toBe("image/webp");
    expect(sniffImageType(Buffer.from(SVG))).toBeUndefined();
    expect(sniffImageType(Uint8Array.from([0x89, 0x50]))).toBeUndefined();
    expect(sniffImageType(Buffer.from("RIFF\0\0\0\0WAVEfmt "))).toBeUndefined();
  });

  it("accepts each type with its own bytes", () => {
    for (const [mime, bytes] of [
      ["image/png", PNG],
      ["image/jpeg", JPEG],
      ["image/gif", GIF],
      ["image/webp", WEBP],
    ] as const) {
      const checked = attachmentBody({ name: "x", mime_type: mime, data: b64(bytes) });
      expect(checked.ok, mime).toBe(true);
    }
  });

  it("refuses an SVG or a JPEG sent as a PNG, naming data", () => {
    expect(attachmentBody({ name: "a.png", mime_type: "image/png", data: b64(SVG) })).toEqual({
      ok: false,
      field: "data",
      message: "the bytes are not image/png (they have no png, jpeg, gif or webp signature)",
    });
    expect(attachmentBody({ name: "a.png", mime_type: "IMAGE/PNG", data: b64(JPEG) })).toEqual({
      ok: false,
      field: "data",
      message: "the bytes are not image/png (they are image/jpeg)",
    });
    expect(attachmentBody({ name: "a.png", mime_type: "image/png", data: "" })).toMatchObject({
      ok: false,
      field: "data",
    });
  });

  it("takes text only as UTF-8 without NULs", () => {
    expect(attachmentBody({ name: "a.txt", mime_type: "", data: b64("a\u0000b") })).toMatchObject({
      ok: false,
      field: "data",
    });
    expect(attachmentBody({ name: "a.txt", mime_type: "", data: b64([0xc3, 0x28]) })).toMatchObject(
      { ok: false, field: "data" },
    );
    expect(
      attachmentBody({ name: "a.svg", mime_type: "text/plain", data: b64(SVG) }),
    ).toMatchObject({ ok: true, body: { content: [{ type: "text", text: SVG }] } });
  });
});

describe("attachment names are cleaned", () => {
  it("keeps the last path segment without control, direction or leading-dot tricks", () => {
    expect(cleanAttachmentName("../../etc/passwd")).toBe("passwd");
    expect(cleanAttachmentName("C:\\Users\\me\\report.pdf")).toBe("report.pdf");
    expect(cleanAttachmentName("..")).toBe("");
    expect(cleanAttachmentName(".bashrc")).toBe("bashrc");
    expect(cleanAttachmentName("...hidden.txt")).toBe("hidden.txt");
    expect(cleanAttachmentName("notes\u0000.md\n")).toBe("notes.md");
    expect(cleanAttachmentName("line\nbreak\tand  spaces.txt")).toBe("linebreakand spaces.txt");
    expect(cleanAttachmentName("invoice\u202Efdp.exe")).toBe("invoicefdp.exe");
    expect(cleanAttachmentName("résumé 2026.md")).toBe("résumé 2026.md");
  });

  it("bounds the length and keeps the extension", () => {
    const cut = cleanAttachmentName(`${"a".repeat(300)}.png`);
    expect([...cut]).toHaveLength(MAX_ATTACHMENT_NAME_CHARS);
    expect(cut.endsWith("aaa.png")).toBe(true);
  });

  it("stores the cleaned name, and refuses a name with nothing readable", () => {
    expect(
      attachmentBody({
        name: "../x/\u0007notes.md",
        mime_type: "text/markdown",
        data: b64("# hi"),
      }),
    ).toMatchObject({ ok: true, body: { name: "notes.md" } });
    expect(attachmentBody({ name: "a/..", mime_type: "", data: b64("hi") })).toEqual({
      ok: false,
      field: "name",
      message: "the name has no readable characters",
    });
  });
});

describe("archives and PDFs are refused, by type and by their first bytes (issue #27)", () => {
  // a zip whose bytes happen to be UTF-8 without NULs: before, it reached the model as text
  const ZIP_AS_TEXT = "PK\u0003\u0004notes.txt fix the parser";

  it("refuses a zip's bytes under any type, naming data", () => {
    for (const mime of ["", "text/plain", "application/zip"]) {
      const checked = attachmentBody({
        name: "notes.zip",
        mime_type: mime,
        data: b64(ZIP_AS_TEXT),
      });
      expect(checked).toMatchObject({ ok: false, field: "data" });
      if (!checked.ok) expect(checked.message).toMatch(/^a zip archive cannot be attached/);
    }
  });

  it("refuses archive types by name, naming mime_type", () => {
    for (const mime of ["application/zip", "application/x-7z-compressed", "application/pdf"]) {
      const checked = attachmentBody({ name: "a.bin", mime_type: mime, data: b64("plain words") });
      expect(checked).toMatchObject({ ok: false, field: "mime_type" });
    }
  });

  it("knows gzip, tar and PDF by their bytes; plain text still passes", () => {
    expect(refusedFileType("", Uint8Array.from([0x1f, 0x8b, 8, 0]))?.kind).toBe("a gzip file");
    const tar = new Uint8Array(300);
    tar.set(
      [..."ustar"].map((c) => c.charCodeAt(0)),
      257,
    );
    expect(refusedFileType("", tar)?.kind).toBe("a tar archive");
    expect(refusedFileType("", Buffer.from("%PDF-1.7"))?.kind).toBe("a PDF");
    expect(refusedFileType("text/markdown", Buffer.from("# PK is fine in a text"))).toBeUndefined();
    expect(attachmentBody({ name: "n.md", mime_type: "text/markdown", data: b64("# hi") }).ok).toBe(
      true,
    );
  });
});

describe("an imported session's images are checked wherever they are", () => {
  it("names an image a text carries whose bytes are not its type", () => {
    const found = mismatchedImages([
      { body: { message_type: "text", text: "hi" } },
      {
        body: {
          message_type: "text",
          text: "see",
          attachments: [
            { content: [{ type: "image", mimeType: "image/png", data: b64(PNG) }] },
            { content: [{ type: "image", mimeType: "image/png", data: b64(SVG) }] },
          ],
        },
      },
    ] as unknown as Parameters<typeof mismatchedImages>[0]);
    expect(found).toEqual([
      {
        path: [1, "body", "attachments", 1, "content", 0, "data"],
        message: expect.stringMatching(/not image\/png/),
      },
    ]);
  });
});
