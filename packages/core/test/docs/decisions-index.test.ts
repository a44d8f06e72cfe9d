import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, readRepoFile } from "./repo-files.js";

// docs/decisions/README.md indexes every decision record with its status (issue #29, finding 7).

const DIR = "docs/decisions";
const index = readRepoFile(`${DIR}/README.md`);
const records = readdirSync(join(REPO, DIR))
  .filter((name) => /^\d{4}-.+\.md$/.test(name))
  .sort();

interface Row {
  number: string;
  file: string | undefined;
  title: string;
  status: string;
}

/** The table rows: `| [0001](0001-x.md) | title | status | summary |`, or `| 0056 | … |`. */
function rows(text: string): Row[] {
  return [
    ...text.matchAll(/^\| (?:\[(\d{4})\]\(([^)]+)\)|(\d{4})) \| (.+?) \| (.+?) \| .+ \|$/gm),
  ].map((m) => ({
    number: m[1] ?? m[3] ?? "",
    file: m[2],
    title: m[4] ?? "",
    status: m[5] ?? "",
  }));
}

const STATUS = /^(?:accepted|this wave|(?:partly )?superseded by \d{4}(?:, \d{4})*)$/;

describe("docs/decisions/README.md", () => {
  const table = rows(index);

  it("has a line for every record, linking its file", () => {
    expect(records.length).toBeGreaterThan(40);
    const linked = table.flatMap((row) => (row.file === undefined ? [] : [row.file]));
    expect(records.filter((file) => !linked.includes(file))).toEqual([]);
  });

  it("names no file that does not exist, and each link's number is its file's", () => {
    for (const row of table) {
      if (row.file === undefined) continue;
      expect(existsSync(join(REPO, DIR, row.file)), row.file).toBe(true);
      expect(row.file.slice(0, 4)).toBe(row.number);
    }
  });

  it("lists each number once, in order", () => {
    const numbers = table.map((row) => row.number);
    expect(numbers).toEqual([...new Set(numbers)].sort());
  });

  it("gives each record its heading as title", () => {
    for (const row of table) {
      if (row.file === undefined) continue;
      const heading = readRepoFile(`${DIR}/${row.file}`).split("\n")[0] ?? "";
      expect(heading.replace(/^# \d{4}\s*(?:—|:)\s*/, ""), row.file).toBe(row.title);
    }
  });

  it("gives each a status, and a superseding record that is listed", () => {
    const numbers = new Set(table.map((row) => row.number));
    for (const row of table) {
      expect(row.status, row.number).toMatch(STATUS);
      for (const later of row.status.match(/\d{4}/g) ?? []) {
        expect(numbers.has(later), `${row.number} names ${later}`).toBe(true);
        expect(Number(later), `${row.number} superseded by an earlier record`).toBeGreaterThan(
          Number(row.number),
        );
      }
      // a record that exists is no longer "this wave": it is linked with its real status
      if (row.status === "this wave") {
        expect(
          records.some((file) => file.startsWith(row.number)),
          row.number,
        ).toBe(false);
      }
    }
  });

  it("says a word on every number that has no record", () => {
    const numbers = table.map((row) => Number(row.number));
    const missing: string[] = [];
    for (let n = 1; n <= Math.max(...numbers); n++) {
      if (!numbers.includes(n)) missing.push(String(n).padStart(4, "0"));
    }
    const gaps = index.slice(index.indexOf("## Numbering gaps"));
    expect(index).toContain("## Numbering gaps");
    expect(missing.filter((number) => !gaps.includes(number))).toEqual([]);
  });
});

describe("decision 0010's layer list", () => {
  it("is CORE_LAYERS of test/import-layers.test.ts, in order", () => {
    const test = readRepoFile("packages/core/test/import-layers.test.ts");
    const array = /const CORE_LAYERS = \[([\s\S]*?)\]/.exec(test)?.[1] ?? "";
    const layers = [...array.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    const record = readRepoFile(`${DIR}/0010-core-layers.md`);
    const listed = [...record.matchAll(/^\d+\. `([^`]+)\/`/gm)].map((m) => m[1]);
    expect(layers.length).toBeGreaterThan(10);
    expect(listed).toEqual(layers);
  });
});
