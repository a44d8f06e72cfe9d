// BM25, the ranking the codebase search and the fold memories share: a term's weight in one
// document from its frequency there, the document's length against the average, and how rare
// the term is across all documents.

/** The usual parameters. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** How rare a term is: `docs` documents in all, `docsWithTerm` of them hold it. */
export function bm25Idf(docs: number, docsWithTerm: number): number {
  return Math.log(1 + (docs - docsWithTerm + 0.5) / (docsWithTerm + 0.5));
}

/** One term's score in one document (`tf` times in a document of `length` terms). */
export function bm25TermScore(tf: number, idf: number, length: number, avgLength: number): number {
  return (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgLength));
}
