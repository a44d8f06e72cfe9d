import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { StreamProvider } from "../llm/provider.js";
import type { CacheConfig, ModelConfig, ThinkingLevel } from "../model/llm-config.js";
import { DEFAULT_CACHE_CONFIG } from "../model/llm-config.js";
import { type AgentMessage, AgentMessageSchema, userMessage } from "../model/llm-messages.js";
import type { SkillSet } from "../skills/skill-set.js";
import { createSkillTool, SKILL_TOOL } from "../skills/skill-tool.js";
import type { AnyAgentTool } from "../tools/tool.js";
import type { AgentEventSink } from "./event-sink.js";
import { EventStream } from "./event-stream.js";
import { runAgentLoop, runAgentLoopContinue } from "./loop.js";
import { effectiveConfigId, LoopIdAllocator } from "./loop-id.js";
import {
  type AgentContext,
  type AgentEvent,
  type AgentHooks,
  type AgentLoopConfig,
  type CompactionStrategy,
  type ContextConfig,
  type ContinuationKind,
  DEFAULT_CONTEXT_CONFIG,
  DEFAULT_EXECUTION_LIMITS,
  DEFAULT_RETRY_CONFIG,
  type ExecutionLimits,
  type InputFilter,
  type Logger,
  type QueueMode,
  type RetryConfig,
  type TokenCounter,
  type ToolExecutionStrategy,
} from "./types.js";

// The stateful agent (REQ-024–027, 034, 035, 063–067, 107, 144, 186–189): history, queues,
// identity and settings around the stateless loop. One run at a time; steer()/followUp() talk to
// the running one. New messages are merged into `messages` when a run completes.

export interface AgentOptions {
  provider: StreamProvider;
  model: ModelConfig;
  /** default "" */
  systemPrompt?: string;
  /** default [] */
  tools?: AnyAgentTool[];
  /** default "off" */
  thinkingLevel?: ThinkingLevel;
  maxTokens?: number;
  temperature?: number;
  /** default parallel */
  toolExecution?: ToolExecutionStrategy;
  /** default "oneAtATime" (REQ-017/090) */
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  /** default DEFAULT_CONTEXT_CONFIG; null disables compaction */
  contextConfig?: ContextConfig | null;
  /** default DEFAULT_EXECUTION_LIMITS; null disables limits */
  executionLimits?: ExecutionLimits | null;
  /** default DEFAULT_RETRY_CONFIG */
  retryConfig?: RetryConfig;
  /** default DEFAULT_CACHE_CONFIG */
  cacheConfig?: CacheConfig;
  hooks?: AgentHooks;
  inputFilters?: InputFilter[];
  compactionStrategy?: CompactionStrategy;
  tokenCounter?: TokenCounter;
  transformContext?: AgentLoopConfig["transformContext"];
  convertToLlm?: AgentLoopConfig["convertToLlm"];
  logger?: Logger;
  /** REQ-187: middle segment of loop ids; derived from provider + model when absent */
  configId?: string;
}

/** The agent's settings with every default applied. */
export type AgentSettings = Required<
  Omit<
    AgentOptions,
    | "maxTokens"
    | "temperature"
    | "compactionStrategy"
    | "tokenCounter"
    | "transformContext"
    | "convertToLlm"
    | "logger"
    | "configId"
  >
> &
  Pick<
    AgentOptions,
    | "maxTokens"
    | "temperature"
    | "compactionStrategy"
    | "tokenCounter"
    | "transformContext"
    | "convertToLlm"
    | "logger"
    | "configId"
  >;

type PromptInput = string | AgentMessage | AgentMessage[];

export class Agent {
  /** REQ-188: stable for this Agent's lifetime */
  readonly agentId: string = randomUUID();
  private sessionIdValue: string = randomUUID();
  private lastActiveAtValue: Date | undefined;
  private settingsValue: AgentSettings;
  private history: AgentMessage[] = [];
  private readonly steeringQueue: AgentMessage[] = [];
  private readonly followUpQueue: AgentMessage[] = [];
  private readonly loopIds = new LoopIdAllocator();
  private lastLoopIdValue: string | undefined;
  /** the running run's controller; undefined when idle */
  private controller: AbortController | undefined;
  /** bumped by reset(): a run from before a reset must not merge into the fresh history */
  private generation = 0;

  constructor(options: AgentOptions) {
    this.settingsValue = {
      systemPrompt: "",
      tools: [],
      thinkingLevel: "off",
      toolExecution: { type: "parallel" },
      steeringMode: "oneAtATime",
      followUpMode: "oneAtATime",
      contextConfig: { ...DEFAULT_CONTEXT_CONFIG },
      executionLimits: { ...DEFAULT_EXECUTION_LIMITS },
      retryConfig: { ...DEFAULT_RETRY_CONFIG },
      cacheConfig: DEFAULT_CACHE_CONFIG,
      hooks: {},
      inputFilters: [],
      ...stripUndefined(options),
      provider: options.provider,
      model: options.model,
    };
  }

  /** The settings with defaults applied (read-only view; change them with the with* builders). */
  get settings(): Readonly<AgentSettings> {
    return this.settingsValue;
  }

  // --- builders (REQ-025/026/146): each sets one setting and returns this -----------------------
  withSystemPrompt(systemPrompt: string): this {
    return this.set({ systemPrompt });
  }
  withModel(model: ModelConfig): this {
    return this.set({ model });
  }
  withProvider(provider: StreamProvider): this {
    return this.set({ provider });
  }
  withMaxTokens(maxTokens: number): this {
    return this.set({ maxTokens });
  }
  withTemperature(temperature: number): this {
    return this.set({ temperature });
  }
  withThinking(thinkingLevel: ThinkingLevel): this {
    return this.set({ thinkingLevel });
  }
  /** replaces the tool list */
  withTools(tools: AnyAgentTool[]): this {
    return this.set({ tools: [...tools] });
  }
  /**
   * REQ-113: appends the skills' `<available_skills>` block to the system prompt and adds the
   * `skill` tool that loads them (progressive disclosure). A set without skills changes nothing.
   */
  withSkills(skills: SkillSet): this {
    const block = skills.formatForPrompt();
    if (block === "") return this;
    const prompt = this.settingsValue.systemPrompt;
    const tools = this.settingsValue.tools.filter((t) => t.name !== SKILL_TOOL);
    return this.set({
      systemPrompt: prompt === "" ? block : `${prompt}\n\n${block}`,
      tools: [...tools, createSkillTool(() => skills)],
    });
  }
  withContextConfig(contextConfig: ContextConfig | null): this {
    return this.set({ contextConfig });
  }
  withExecutionLimits(executionLimits: ExecutionLimits | null): this {
    return this.set({ executionLimits });
  }
  withRetryConfig(retryConfig: RetryConfig): this {
    return this.set({ retryConfig });
  }
  withCacheConfig(cacheConfig: CacheConfig): this {
    return this.set({ cacheConfig });
  }
  withToolExecution(toolExecution: ToolExecutionStrategy): this {
    return this.set({ toolExecution });
  }
  withSteeringMode(steeringMode: QueueMode): this {
    return this.set({ steeringMode });
  }
  withFollowUpMode(followUpMode: QueueMode): this {
    return this.set({ followUpMode });
  }
  withHooks(hooks: AgentHooks): this {
    return this.set({ hooks });
  }
  /** appends a filter to the chain */
  withInputFilter(filter: InputFilter): this {
    return this.set({ inputFilters: [...this.settingsValue.inputFilters, filter] });
  }
  withCompactionStrategy(compactionStrategy: CompactionStrategy): this {
    return this.set({ compactionStrategy });
  }
  withTokenCounter(tokenCounter: TokenCounter): this {
    return this.set({ tokenCounter });
  }
  withLogger(logger: Logger): this {
    return this.set({ logger });
  }
  withConfigId(configId: string): this {
    return this.set({ configId });
  }

  private set(patch: Partial<AgentSettings>): this {
    this.settingsValue = { ...this.settingsValue, ...patch };
    return this;
  }

  // --- state -------------------------------------------------------------------------------------
  /** The history (a copy; the agent's own array is never handed out). */
  get messages(): AgentMessage[] {
    return [...this.history];
  }

  get isStreaming(): boolean {
    return this.controller !== undefined;
  }

  get lastLoopId(): string | undefined {
    return this.lastLoopIdValue;
  }

  /**
   * REQ-188/215: the session the agent's loops belong to (loop ids and records name it). Stable
   * until newSession() or checkAndRotate() starts another.
   */
  get sessionId(): string {
    return this.sessionIdValue;
  }

  /**
   * REQ-215: when the agent was last active: a prompt or continue() started, or its run ended;
   * undefined before the first run and after a rotation.
   */
  get lastActiveAt(): Date | undefined {
    return this.lastActiveAtValue === undefined ? undefined : new Date(this.lastActiveAtValue);
  }

  /**
   * REQ-215: starts a new session: a new session id, loop numbers from 1 again, and no parent for
   * the next run (its loop is a root of the new session's tree). The history, settings and queues
   * stay: rotation starts a new record, not a new conversation (reset() clears the history).
   * Returns the new id. Throws while a run is active: its loops belong to the current session.
   */
  newSession(): string {
    if (this.controller !== undefined)
      throw new Error("newSession: cannot start a new session while a run is active");
    this.sessionIdValue = randomUUID();
    this.loopIds.clear();
    this.lastLoopIdValue = undefined;
    this.lastActiveAtValue = undefined;
    return this.sessionIdValue;
  }

  /**
   * REQ-215: rotates the session (newSession()) when the agent has been idle for more than
   * `thresholdMs` since lastActiveAt; an agent never active, or running now, is left alone.
   * Returns whether it rotated. Call it before a prompt to split a long-lived agent's work into
   * sessions by idle time.
   */
  checkAndRotate(thresholdMs: number, now: Date = new Date()): boolean {
    const last = this.lastActiveAtValue;
    if (last === undefined || this.controller !== undefined) return false;
    if (now.getTime() - last.getTime() <= thresholdMs) return false;
    this.newSession();
    return true;
  }

  /** REQ-189: `{sessionId}.{configId}.{n}`, n counted per config. */
  nextLoopId(
    config: Pick<
      AgentLoopConfig,
      "provider" | "model" | "thinkingLevel" | "configId"
    > = this.loopConfig(),
  ): string {
    return this.loopIds.next(this.sessionId, effectiveConfigId(config));
  }

  // --- runs ----------------------------------------------------------------------------------------
  /** REQ-034: starts a run and returns its event stream at once. */
  prompt(input: PromptInput): EventStream<AgentEvent, AgentMessage[]> {
    const stream = new EventStream<AgentEvent, AgentMessage[]>();
    void this.promptWithSink(input, stream).then((messages) => stream.end(messages));
    return stream;
  }

  /**
   * REQ-144: like prompt(), but the events go to the caller's sink, which is not ended, so one
   * sink can collect several runs. Resolves with the run's new messages. Throws synchronously
   * (REQ-107) when a run is active.
   */
  promptWithSink(input: PromptInput, sink: AgentEventSink): Promise<AgentMessage[]> {
    const prompts =
      typeof input === "string" ? [userMessage(input)] : Array.isArray(input) ? input : [input];
    return this.start((context, config, signal) =>
      runAgentLoop(prompts, context, config, sink, signal),
    );
  }

  /** REQ-037: continues from the current history (which must not end with an assistant message). */
  continue(continuationKind?: ContinuationKind): EventStream<AgentEvent, AgentMessage[]> {
    const stream = new EventStream<AgentEvent, AgentMessage[]>();
    void this.continueWithSink(stream, continuationKind).then((messages) => stream.end(messages));
    return stream;
  }

  continueWithSink(
    sink: AgentEventSink,
    continuationKind?: ContinuationKind,
  ): Promise<AgentMessage[]> {
    return this.start((context, config, signal) => {
      if (continuationKind !== undefined) context.continuationKind = continuationKind;
      if (this.lastLoopIdValue !== undefined) context.parentLoopId = this.lastLoopIdValue;
      return runAgentLoopContinue(context, config, sink, signal);
    });
  }

  private start(
    launch: (
      context: AgentContext,
      config: AgentLoopConfig,
      signal: AbortSignal,
    ) => Promise<AgentMessage[]>,
  ): Promise<AgentMessage[]> {
    if (this.controller !== undefined) {
      throw new Error(
        "Agent is already running. Use steer() to redirect the running agent or followUp() to queue a message for when it finishes.",
      );
    }
    const controller = new AbortController();
    const generation = this.generation;
    const config = this.loopConfig();
    const loopId = this.nextLoopId(config);
    const context: AgentContext = {
      systemPrompt: this.settingsValue.systemPrompt,
      messages: [...this.history],
      tools: this.settingsValue.tools,
      agentId: this.agentId,
      sessionId: this.sessionId,
      loopId,
    };
    let running: Promise<AgentMessage[]>;
    this.controller = controller;
    try {
      running = launch(context, config, controller.signal);
    } catch (error) {
      this.controller = undefined; // a precondition failed (REQ-108): nothing started
      throw error;
    }
    this.lastLoopIdValue = loopId;
    this.lastActiveAtValue = new Date();
    return running.then((newMessages) => {
      if (this.generation === generation) {
        // The history becomes the run's working history: when compaction ran, older turns are
        // in their compacted form, so an Agent's memory stays bounded (REQ-172). Every new
        // message still reaches callers in full through events and agentEnd.messages; keep those
        // (e.g. with the LoopRecorder or a store) for a complete record.
        this.history = context.messages;
        this.controller = undefined;
        // idle time counts from the end of the run, not its start
        this.lastActiveAtValue = new Date();
      }
      return newMessages;
    });
  }

  /** REQ-066: a message for the running agent, injected before its next model call. */
  steer(message: string | AgentMessage): void {
    this.steeringQueue.push(typeof message === "string" ? userMessage(message) : message);
  }

  /** REQ-066: a message processed once the agent would otherwise stop. */
  followUp(message: string | AgentMessage): void {
    this.followUpQueue.push(typeof message === "string" ? userMessage(message) : message);
  }

  /** REQ-067: cancels the running run (no-op when idle). */
  abort(): void {
    this.controller?.abort();
  }

  /** REQ-065: clears history and queues and aborts the running run, whose messages are then dropped. */
  reset(): void {
    this.controller?.abort();
    this.controller = undefined;
    this.generation++;
    this.history = [];
    this.steeringQueue.length = 0;
    this.followUpQueue.length = 0;
  }

  /** REQ-063: the history as a JSON array. */
  saveMessages(): string {
    return JSON.stringify(this.history);
  }

  /** REQ-064: replaces the history; the JSON is checked against AgentMessageSchema. */
  restoreMessages(json: string): void {
    if (this.controller !== undefined)
      throw new Error("restoreMessages: cannot restore while a run is active");
    let raw: unknown;
    try {
      raw = JSON.parse(json);
    } catch (error) {
      throw new Error(
        `restoreMessages: invalid JSON (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    const parsed = z.array(AgentMessageSchema).safeParse(raw);
    if (!parsed.success) {
      throw new Error(
        `restoreMessages: not a list of agent messages:\n${z.prettifyError(parsed.error)}`,
      );
    }
    this.history = parsed.data;
  }

  private loopConfig(): AgentLoopConfig {
    const s = this.settingsValue;
    const config: AgentLoopConfig = {
      provider: s.provider,
      model: s.model,
      thinkingLevel: s.thinkingLevel,
      contextConfig: s.contextConfig,
      executionLimits: s.executionLimits,
      cacheConfig: s.cacheConfig,
      toolExecution: s.toolExecution,
      retryConfig: s.retryConfig,
      inputFilters: s.inputFilters,
      hooks: s.hooks,
      getSteeringMessages: () => dequeue(this.steeringQueue, this.settingsValue.steeringMode),
      getFollowUpMessages: () => dequeue(this.followUpQueue, this.settingsValue.followUpMode),
    };
    if (s.maxTokens !== undefined) config.maxTokens = s.maxTokens;
    if (s.temperature !== undefined) config.temperature = s.temperature;
    if (s.compactionStrategy !== undefined) config.compactionStrategy = s.compactionStrategy;
    if (s.tokenCounter !== undefined) config.tokenCounter = s.tokenCounter;
    if (s.transformContext !== undefined) config.transformContext = s.transformContext;
    if (s.convertToLlm !== undefined) config.convertToLlm = s.convertToLlm;
    if (s.logger !== undefined) config.logger = s.logger;
    if (s.configId !== undefined) config.configId = s.configId;
    return config;
  }
}

/** REQ-090: oneAtATime takes the oldest message; all drains the queue. */
function dequeue(queue: AgentMessage[], mode: QueueMode): AgentMessage[] {
  switch (mode) {
    case "oneAtATime":
      return queue.splice(0, 1);
    case "all":
      return queue.splice(0);
    default:
      return mode satisfies never;
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
