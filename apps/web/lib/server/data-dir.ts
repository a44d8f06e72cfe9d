import { join, resolve } from "node:path";

type Env = Record<string, string | undefined>;

/** The store's data directory: ARBOR_DATA_DIR, else <cwd>/.data (as @arbor/db picks it). */
export function dataDirOf(env: Env): string {
  const configured = env.ARBOR_DATA_DIR?.trim();
  // turbopackIgnore: a path known only at run time; without it the build traces the whole repo
  return resolve(/* turbopackIgnore: true */ configured || join(process.cwd(), ".data"));
}
