// How text becomes search terms: identifiers are split on case changes, digits and underscores
// (`parseHTTPRequest_v2` → parse, http, request, v2) and lower-cased, and the whole identifier is
// kept as a term of its own, so both "request" and "parsehttprequest" find it.

const WORD = /[A-Za-z_$][A-Za-z0-9_$]*/g;
const PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

/** The lower-cased parts of one identifier (not including the whole identifier). */
export function splitIdentifier(identifier: string): string[] {
  const parts = identifier.match(PARTS);
  if (parts === null) return [];
  return parts.map((part) => part.toLowerCase());
}

/** Terms of an identifier: its parts, plus the whole (lower-cased) when it has several parts. */
export function identifierTerms(identifier: string): string[] {
  const parts = splitIdentifier(identifier);
  const whole = identifier.replace(/^[_$]+|[_$]+$/g, "").toLowerCase();
  if (parts.length !== 1 && whole.length > 1) parts.push(whole);
  return parts.filter((term) => term.length > 1 || /[0-9]/.test(term));
}

/** Term frequencies of a text: every word-like run, split as an identifier. */
export function termFrequencies(text: string): Map<string, number> {
  // words repeat a lot in code: count them first, split each distinct word once
  const words = new Map<string, number>();
  for (const match of text.matchAll(WORD)) words.set(match[0], (words.get(match[0]) ?? 0) + 1);
  const counts = new Map<string, number>();
  for (const [word, times] of words) {
    for (const term of identifierTerms(word)) counts.set(term, (counts.get(term) ?? 0) + times);
  }
  return counts;
}

/** Terms of a query, in order, without repeats. */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  for (const match of query.matchAll(WORD)) {
    for (const term of identifierTerms(match[0])) if (!terms.includes(term)) terms.push(term);
  }
  return terms;
}
