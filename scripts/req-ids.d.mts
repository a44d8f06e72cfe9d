// Types of req-ids.mjs, for the TypeScript test that uses it (packages/core/test/docs/req-ids.test.ts).
export function citingFiles(root: string): string[];
export function reqIdsIn(text: string): Set<string>;
export function reqIdsInTree(root: string): Set<string>;
