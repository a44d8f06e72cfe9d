import type { PipelineConfig } from "../model/branch.js";
import {
  createFileReferenceProcessor,
  FILE_REFERENCE_PROCESSOR,
  type FileReferenceOptions,
} from "./file-reference-processor.js";
import type { MessageProcessor } from "./pipeline.js";
import {
  OPTIMIZATION_PROCESSOR,
  optimizationProcessor,
  SYSTEM_PROMPT_PROCESSOR,
  systemPromptProcessor,
  TOOL_ENHANCEMENT_PROCESSOR,
  toolEnhancementProcessor,
} from "./pipeline-processors.js";

// Processors by name, so that a branch's `pipeline.processors` (model/branch.ts) can pick its own
// composition. A branch without one uses DEFAULT_PIPELINE.

export const DEFAULT_PIPELINE: PipelineConfig = {
  processors: [
    FILE_REFERENCE_PROCESSOR,
    TOOL_ENHANCEMENT_PROCESSOR,
    SYSTEM_PROMPT_PROCESSOR,
    OPTIMIZATION_PROCESSOR,
  ],
};

export type PipelineComposeResult =
  | { ok: true; processors: MessageProcessor[] }
  | { ok: false; error: string; unknown: string[] };

export interface ProcessorRegistry {
  get(name: string): MessageProcessor | undefined;
  /** registered names, in registration order */
  names(): string[];
  /** adds a processor; a name already taken is an error (throws) */
  register(processor: MessageProcessor): void;
  /**
   * The processors for a pipeline config (DEFAULT_PIPELINE when absent), in its order. Unknown
   * names are rejected all at once, so a branch can be validated before it is saved.
   */
  compose(config?: PipelineConfig): PipelineComposeResult;
}

export interface ProcessorRegistryOptions {
  fileReference?: FileReferenceOptions;
  /** further processors, registered after the four built-in ones */
  extra?: readonly MessageProcessor[];
}

export function createProcessorRegistry(options: ProcessorRegistryOptions = {}): ProcessorRegistry {
  const byName = new Map<string, MessageProcessor>();
  const registry: ProcessorRegistry = {
    get: (name) => byName.get(name),
    names: () => [...byName.keys()],
    register(processor) {
      if (byName.has(processor.name)) {
        throw new Error(`a processor named ${processor.name} is already registered`);
      }
      byName.set(processor.name, processor);
    },
    compose(config = DEFAULT_PIPELINE) {
      const unknown = config.processors.filter((name) => !byName.has(name));
      if (unknown.length > 0) {
        return {
          ok: false,
          unknown,
          error: `unknown pipeline processor${unknown.length === 1 ? "" : "s"}: ${unknown.join(", ")} (known: ${[...byName.keys()].join(", ")})`,
        };
      }
      return { ok: true, processors: config.processors.map((name) => byName.get(name)!) };
    },
  };
  registry.register(createFileReferenceProcessor(options.fileReference));
  registry.register(toolEnhancementProcessor);
  registry.register(systemPromptProcessor);
  registry.register(optimizationProcessor);
  for (const processor of options.extra ?? []) registry.register(processor);
  return registry;
}
