// The languages the symbol index knows: which files are which language, which tree-sitter grammar
// (from @vscode/tree-sitter-wasm) parses them, and the query that finds their definitions.
//
// Query convention: a pattern captures the whole definition as `@def.<kind>` and its name as
// `@name`. `@scope` captures a node that names a container without being a definition itself
// (Rust's `impl Foo { … }`), so the methods inside it get `Foo` as container.
// C has no grammar in the package: C files are parsed with the C++ grammar, whose syntax is a
// superset for everything the queries look at (functions, structs, enums, typedefs, macros).

export type DefinitionKind =
  | "function"
  | "method"
  | "class"
  | "interface"
  | "type"
  | "enum"
  | "constant";

export const DEFINITION_KINDS: readonly DefinitionKind[] = [
  "function",
  "method",
  "class",
  "interface",
  "type",
  "enum",
  "constant",
];

export interface LanguageSpec {
  /** shown in the overview */
  readonly name: string;
  /** grammar file in @vscode/tree-sitter-wasm/wasm; undefined = text only (searched, not parsed) */
  readonly grammar?: string;
  readonly definitions?: string;
  /** node types whose leaves are identifier occurrences (for find_references) */
  readonly identifiers?: readonly string[];
}

const JS_DEFS = `
(function_declaration name: (_) @name) @def.function
(generator_function_declaration name: (_) @name) @def.function
(class_declaration name: (_) @name) @def.class
(method_definition name: (_) @name) @def.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant)))
(assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @def.function
`;

const TS_DEFS = `${JS_DEFS}
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name) @def.enum
(abstract_method_signature name: (_) @name) @def.method
(method_signature name: (_) @name) @def.method
(function_signature name: (_) @name) @def.function
(module name: (_) @name) @def.type
`;

const JS_IDS = [
  "identifier",
  "property_identifier",
  "shorthand_property_identifier",
  "shorthand_property_identifier_pattern",
  "private_property_identifier",
];

const LANGUAGES = {
  typescript: {
    name: "TypeScript",
    grammar: "tree-sitter-typescript.wasm",
    definitions: TS_DEFS,
    identifiers: [...JS_IDS, "type_identifier"],
  },
  tsx: {
    name: "TypeScript (TSX)",
    grammar: "tree-sitter-tsx.wasm",
    definitions: TS_DEFS,
    identifiers: [...JS_IDS, "type_identifier"],
  },
  javascript: {
    name: "JavaScript",
    grammar: "tree-sitter-javascript.wasm",
    definitions: JS_DEFS,
    identifiers: JS_IDS,
  },
  python: {
    name: "Python",
    grammar: "tree-sitter-python.wasm",
    definitions: `
(function_definition name: (identifier) @name) @def.function
(class_definition name: (identifier) @name) @def.class
(module (expression_statement (assignment left: (identifier) @name) @def.constant))
`,
    identifiers: ["identifier"],
  },
  go: {
    name: "Go",
    grammar: "tree-sitter-go.wasm",
    definitions: `
(function_declaration name: (identifier) @name) @def.function
(method_declaration receiver: (parameter_list (parameter_declaration type: [(type_identifier) (pointer_type (type_identifier)) (generic_type) (pointer_type (generic_type))] @container)) name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name type: (struct_type)) @def.class
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (pointer_type) (slice_type) (map_type) (function_type) (channel_type) (array_type) (generic_type)]) @def.type
(type_alias name: (type_identifier) @name) @def.type
(method_elem name: (field_identifier) @name) @def.method
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.constant))
`,
    identifiers: ["identifier", "type_identifier", "field_identifier", "package_identifier"],
  },
  rust: {
    name: "Rust",
    grammar: "tree-sitter-rust.wasm",
    definitions: `
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.class
(union_item name: (type_identifier) @name) @def.class
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.interface
(type_item name: (type_identifier) @name) @def.type
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.constant
(macro_definition name: (identifier) @name) @def.function
(mod_item name: (identifier) @name) @def.type
(impl_item type: [(type_identifier) (generic_type type: (type_identifier))] @name) @scope
`,
    identifiers: ["identifier", "type_identifier", "field_identifier"],
  },
  java: {
    name: "Java",
    grammar: "tree-sitter-java.wasm",
    definitions: `
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(field_declaration (modifiers "static" "final") declarator: (variable_declarator name: (identifier) @name)) @def.constant
`,
    identifiers: ["identifier", "type_identifier"],
  },
  csharp: {
    name: "C#",
    grammar: "tree-sitter-c-sharp.wasm",
    definitions: `
(class_declaration name: (identifier) @name) @def.class
(struct_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(delegate_declaration name: (identifier) @name) @def.type
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(local_function_statement name: (identifier) @name) @def.function
(property_declaration name: (identifier) @name) @def.constant
(namespace_declaration name: (_) @name) @scope
`,
    identifiers: ["identifier"],
  },
  cpp: {
    name: "C++",
    grammar: "tree-sitter-cpp.wasm",
    definitions: CPP_DEFS(),
    identifiers: ["identifier", "type_identifier", "field_identifier", "namespace_identifier"],
  },
  c: {
    name: "C",
    grammar: "tree-sitter-cpp.wasm",
    definitions: CPP_DEFS(),
    identifiers: ["identifier", "type_identifier", "field_identifier"],
  },
  ruby: {
    name: "Ruby",
    grammar: "tree-sitter-ruby.wasm",
    definitions: `
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
(class name: (_) @name) @def.class
(module name: (_) @name) @def.class
(assignment left: (constant) @name) @def.constant
`,
    identifiers: ["identifier", "constant"],
  },
  php: {
    name: "PHP",
    grammar: "tree-sitter-php.wasm",
    definitions: `
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.method
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.interface
(enum_declaration name: (name) @name) @def.enum
(const_element (name) @name) @def.constant
`,
    identifiers: ["name"],
  },
  bash: {
    name: "Shell",
    grammar: "tree-sitter-bash.wasm",
    definitions: `(function_definition name: (word) @name) @def.function`,
    identifiers: ["variable_name", "command_name"],
  },
  css: { name: "CSS" },
  markdown: { name: "Markdown" },
  json: { name: "JSON" },
  yaml: { name: "YAML" },
  toml: { name: "TOML" },
  html: { name: "HTML" },
  sql: { name: "SQL" },
  text: { name: "Text" },
} satisfies Record<string, LanguageSpec>;

function CPP_DEFS(): string {
  return `
(function_definition declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)) @def.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @container name: (_) @name))) @def.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @def.function
(field_declaration_list (declaration declarator: (function_declarator declarator: [(field_identifier) (identifier)] @name)) @def.method)
(field_declaration_list (field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @def.method)
(translation_unit (declaration declarator: (function_declarator declarator: (identifier) @name)) @def.function)
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(struct_specifier name: (type_identifier) @name body: (_)) @def.class
(union_specifier name: (type_identifier) @name body: (_)) @def.class
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(alias_declaration name: (type_identifier) @name) @def.type
(preproc_def name: (identifier) @name) @def.constant
(preproc_function_def name: (identifier) @name) @def.function
(namespace_definition name: (_) @name) @scope
`;
}

export type LanguageId = keyof typeof LANGUAGES;

export function languageSpec(id: LanguageId): LanguageSpec {
  return LANGUAGES[id];
}

export const LANGUAGE_IDS = Object.keys(LANGUAGES) as LanguageId[];

const BY_EXTENSION: Record<string, LanguageId> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
  java: "java",
  cs: "csharp",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  rb: "ruby",
  rake: "ruby",
  php: "php",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  css: "css",
  scss: "css",
  md: "markdown",
  mdx: "markdown",
  json: "json",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  html: "html",
  htm: "html",
  sql: "sql",
  txt: "text",
  prisma: "text",
  graphql: "text",
  proto: "text",
};

const BY_NAME: Record<string, LanguageId> = {
  Dockerfile: "text",
  Makefile: "text",
  Rakefile: "ruby",
  Gemfile: "ruby",
};

/** The language of a file by its name, or undefined for files the index does not read. */
export function languageOf(fileName: string): LanguageId | undefined {
  const base = fileName.slice(fileName.lastIndexOf("/") + 1);
  const byName = BY_NAME[base];
  if (byName !== undefined) return byName;
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return BY_EXTENSION[base.slice(dot + 1).toLowerCase()];
}
