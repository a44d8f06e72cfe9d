#!/usr/bin/env node
// Writes docs/spec/agent-runtime.md: the requirement lines of the agent runtime's specification
// that the repository's `REQ-…` ids refer to, under their milestones, so a reader can look an id
// up (issue #29). The specification itself is not in the repository; give its path:
//   node scripts/spec-excerpts.mjs /path/to/agent-runtime.md
// packages/core/test/docs/req-ids.test.ts fails when an id used in the tree has no line here:
// run this again after citing a new one.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { reqIdsInTree } from "./req-ids.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const specPath = process.argv[2];
if (specPath === undefined) {
  console.error("usage: node scripts/spec-excerpts.mjs /path/to/agent-runtime.md");
  process.exit(2);
}
const spec = readFileSync(specPath, "utf8").split("\n");
const used = reqIdsInTree(root);

const out = [];
let level = "";
let milestone = "";
let printedLevel = "";
let printedMilestone = "";
const defined = new Set();
for (const line of spec) {
  if (line.startsWith("## Requirement Index")) break;
  if (line.startsWith("## ")) level = line.slice(3).trim();
  if (line.startsWith("### ")) milestone = line.slice(4).trim();
  const id = /^- \[[x ]\] \*\*(REQ-\d{3}):\*\*/.exec(line)?.[1];
  if (id === undefined || !used.has(id)) continue;
  if (printedLevel !== level) {
    out.push("", `## ${level}`);
    printedLevel = level;
  }
  if (printedMilestone !== milestone) {
    out.push("", `### ${milestone}`, "");
    printedMilestone = milestone;
  }
  out.push(line.replace(/^- \[[x ]\] /, "- "));
  defined.add(id);
}
const missing = [...used].filter((id) => !defined.has(id)).sort();
if (missing.length > 0) {
  console.error(`not in the specification: ${missing.join(", ")}`);
  process.exit(1);
}
const header = `# Agent runtime specification: the requirements this repository cites

Excerpts of the agent runtime's specification (its implementation roadmap, "phi-core 0.9.0",
last updated 2026-03-17), which is not part of this repository. Code, tests and docs cite its
requirements by id (\`REQ-091\`, ranges such as \`REQ-109–113\`); each id cited anywhere in the tree
has its requirement line here, word for word, under the specification's own level and milestone
headings. Nothing else of the specification is copied. \`*(Source: [AR])*\` and the like name the
specification's own source documents, which are not given here either.

Written by \`node scripts/spec-excerpts.mjs <path to the specification>\`;
\`packages/core/test/docs/req-ids.test.ts\` fails when an id used in the tree has no line here.
The other specifications the code mentions by name (context-manager.md, context-folding.md,
plan-act-mode.md) have no numbered requirements; they are cited by section title.
`;
writeFileSync(join(root, "docs", "spec", "agent-runtime.md"), `${header}${out.join("\n")}\n`);
console.log(`docs/spec/agent-runtime.md: ${defined.size} requirements`);
