// Where the sign-in page goes afterwards: the `next` query parameter, only when it is a path of
// this site. An absolute URL ("https://evil.example"), a scheme-relative one ("//evil.example"),
// a backslash trick ("/\evil.example", which browsers read as "//evil.example") or anything that
// does not start with a single "/" falls back to "/": the sign-in page is never an open redirect.

/** `next` when it is a same-origin path (with its query and hash), else "/". */
export function safeNextPath(next: string | null | undefined): string {
  if (typeof next !== "string" || next === "") return "/";
  if (!next.startsWith("/") || next.startsWith("//")) return "/";
  // control characters and backslashes are read differently by URL parsers: refuse them all
  // biome-ignore lint/suspicious/noControlCharactersInRegex: what the test is for
  if (/[\\\u0000-\u001f\u007f]/.test(next)) return "/";
  // resolved against a placeholder origin, a path must stay on it
  const base = "http://arbor.invalid";
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return "/";
  }
  if (url.origin !== base) return "/";
  // never back to the sign-in pages themselves
  if (url.pathname === "/login" || url.pathname.startsWith("/invite/")) return "/";
  return url.pathname + url.search + url.hash;
}
