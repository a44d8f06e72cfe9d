import type { LineRange } from "@arbor/core/browser";

export type LineRangeInput =
  | { ok: true; range: LineRange | undefined }
  | { ok: false; field: "start" | "end"; error: string };

/**
 * The file picker's two optional boxes → a range. Both empty: the whole file. Start alone: that
 * one line. End alone, non-integers, zero, or an end before the start are refused with the field
 * to fix, matching core's LineRangeSchema so the server never has to reject a picked range.
 */
export function parseLineRange(start: string, end: string): LineRangeInput {
  const s = start.trim();
  const e = end.trim();
  if (s === "" && e === "") return { ok: true, range: undefined };
  if (s === "") return { ok: false, field: "start", error: "Enter a start line" };
  const startLine = parseLine(s);
  if (startLine === undefined) {
    return { ok: false, field: "start", error: "Start line must be a whole number from 1" };
  }
  if (e === "") return { ok: true, range: { start_line: startLine, end_line: startLine } };
  const endLine = parseLine(e);
  if (endLine === undefined) {
    return { ok: false, field: "end", error: "End line must be a whole number from 1" };
  }
  if (endLine < startLine) {
    return { ok: false, field: "end", error: "End line must not be before the start line" };
  }
  return { ok: true, range: { start_line: startLine, end_line: endLine } };
}

function parseLine(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}
