import { readFile } from "node:fs/promises";
import path from "node:path";

// Key dependencies and declared entry points, read from the manifests of the common ecosystems.
// Each reader is forgiving: a manifest it cannot parse gives nothing rather than an error.

export interface Manifest {
  /** relative path of the manifest */
  path: string;
  ecosystem: string;
  dependencies: string[];
  devDependencies: string[];
  /** entry points the manifest declares (relative to the workspace) */
  entryPoints: string[];
}

export const MANIFEST_NAMES: readonly string[] = [
  "package.json",
  "pyproject.toml",
  "requirements.txt",
  "setup.py",
  "go.mod",
  "Cargo.toml",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "Gemfile",
  "composer.json",
];

function tomlSection(text: string, name: string): string {
  const start = text.search(new RegExp(`^\\[${name.replace(/\./g, "\\.")}\\]\\s*$`, "m"));
  if (start === -1) return "";
  const rest = text.slice(start).split("\n").slice(1);
  const end = rest.findIndex((line) => /^\[/.test(line));
  return (end === -1 ? rest : rest.slice(0, end)).join("\n");
}

function tomlKeys(section: string): string[] {
  return [...section.matchAll(/^([A-Za-z0-9_.-]+)\s*=/gm)].map((m) => m[1] as string);
}

function requirementName(spec: string): string {
  return spec.trim().split(/[\s<>=!~;[\]@(,]/)[0] ?? "";
}

function parse(name: string, rel: string, text: string): Omit<Manifest, "path"> | undefined {
  const dir = path.posix.dirname(rel) === "." ? "" : `${path.posix.dirname(rel)}/`;
  switch (name) {
    case "package.json": {
      const json = JSON.parse(text) as Record<string, unknown>;
      const keys = (value: unknown): string[] =>
        value !== null && typeof value === "object" ? Object.keys(value) : [];
      const entries: string[] = [];
      for (const field of ["main", "module", "browser"]) {
        if (typeof json[field] === "string") entries.push(json[field] as string);
      }
      if (typeof json.bin === "string") entries.push(json.bin);
      else if (json.bin !== null && typeof json.bin === "object") {
        for (const value of Object.values(json.bin))
          if (typeof value === "string") entries.push(value);
      }
      return {
        ecosystem: "npm",
        dependencies: [...keys(json.dependencies), ...keys(json.peerDependencies)],
        devDependencies: keys(json.devDependencies),
        entryPoints: entries.map((entry) => dir + entry.replace(/^\.\//, "")),
      };
    }
    case "pyproject.toml": {
      const list = /^dependencies\s*=\s*\[([\s\S]*?)\]/m.exec(tomlSection(text, "project"))?.[1];
      const deps = list
        ? [...list.matchAll(/["']([^"']+)["']/g)].map((m) => requirementName(m[1] as string))
        : [];
      const poetry = tomlKeys(tomlSection(text, "tool.poetry.dependencies")).filter(
        (k) => k !== "python",
      );
      const scripts = [...tomlSection(text, "project.scripts").matchAll(/=\s*["']([^"':]+)/g)].map(
        (m) => m[1] as string,
      );
      return {
        ecosystem: "Python",
        dependencies: [...deps, ...poetry],
        devDependencies: [],
        entryPoints: scripts,
      };
    }
    case "requirements.txt":
      return {
        ecosystem: "Python",
        dependencies: text
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== "" && !line.startsWith("#") && !line.startsWith("-"))
          .map(requirementName),
        devDependencies: [],
        entryPoints: [],
      };
    case "go.mod": {
      const deps = [...text.matchAll(/^\s*(?:require\s+)?([\w./-]+\.[\w./-]+)\s+v[\w.+-]+/gm)].map(
        (m) => m[1] as string,
      );
      return { ecosystem: "Go", dependencies: deps, devDependencies: [], entryPoints: [] };
    }
    case "Cargo.toml":
      return {
        ecosystem: "Rust",
        dependencies: tomlKeys(tomlSection(text, "dependencies")),
        devDependencies: tomlKeys(tomlSection(text, "dev-dependencies")),
        entryPoints: [],
      };
    case "pom.xml": {
      const deps = [
        ...text.matchAll(
          /<dependency>[\s\S]*?<groupId>([^<]+)<\/groupId>[\s\S]*?<artifactId>([^<]+)<\/artifactId>[\s\S]*?<\/dependency>/g,
        ),
      ].map((m) => `${m[1]}:${m[2]}`);
      return { ecosystem: "Maven", dependencies: deps, devDependencies: [], entryPoints: [] };
    }
    case "build.gradle":
    case "build.gradle.kts": {
      const deps = [
        ...text.matchAll(
          /(?:implementation|api|compileOnly|runtimeOnly)\s*\(?\s*["']([^"':]+:[^"':]+)/g,
        ),
      ].map((m) => m[1] as string);
      return { ecosystem: "Gradle", dependencies: deps, devDependencies: [], entryPoints: [] };
    }
    case "Gemfile":
      return {
        ecosystem: "Ruby",
        dependencies: [...text.matchAll(/^\s*gem\s+["']([^"']+)["']/gm)].map((m) => m[1] as string),
        devDependencies: [],
        entryPoints: [],
      };
    case "composer.json": {
      const json = JSON.parse(text) as { require?: object; "require-dev"?: object };
      return {
        ecosystem: "PHP",
        dependencies: Object.keys(json.require ?? {}),
        devDependencies: Object.keys(json["require-dev"] ?? {}),
        entryPoints: [],
      };
    }
    case "setup.py": {
      const list = /install_requires\s*=\s*\[([\s\S]*?)\]/.exec(text)?.[1];
      const deps = list
        ? [...list.matchAll(/["']([^"']+)["']/g)].map((m) => requirementName(m[1] as string))
        : [];
      return { ecosystem: "Python", dependencies: deps, devDependencies: [], entryPoints: [] };
    }
    default:
      return undefined;
  }
}

/** The manifests found in `dirs` (relative directories, "" = the root). */
export async function readManifests(root: string, dirs: readonly string[]): Promise<Manifest[]> {
  const found: Manifest[] = [];
  for (const dir of dirs) {
    for (const name of MANIFEST_NAMES) {
      const rel = dir === "" ? name : `${dir}/${name}`;
      let text: string;
      try {
        text = await readFile(path.join(root, rel), "utf8");
      } catch {
        continue;
      }
      try {
        const parsed = parse(name, rel, text);
        if (parsed !== undefined) found.push({ path: rel, ...parsed });
      } catch {
        // an unparsable manifest names no dependencies
      }
    }
  }
  return found;
}
