/**
 * Builds one realistic pi v3 session file as JSONL lines, deterministically from an Rng: header,
 * model_change + thinking_level_change, then turns (user message, assistant messages with thinking, text and
 * toolCall blocks, toolResult messages with sizeable outputs), with occasional bashExecution messages,
 * model/thinking changes, compactions, session_info, labels, custom and custom_message entries, research
 * events, and branches (an entry whose parent is an earlier entry, sometimes after a branch_summary).
 * Entries are ~0.3-5 KB, as pi writes them for real coding sessions.
 */
import type { Rng } from "./prng.ts";
import { sliceOf, type TextPools } from "./text-pool.ts";

const MODELS = [
  { provider: "anthropic", modelId: "claude-sonnet-4-5", api: "anthropic-messages" },
  { provider: "anthropic", modelId: "claude-opus-4-5", api: "anthropic-messages" },
  { provider: "openai", modelId: "gpt-5.1-codex", api: "openai-responses" },
  { provider: "google", modelId: "gemini-2.5-pro", api: "google-generative-ai" },
] as const;

const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high"] as const;
const TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"] as const;

type Json = Record<string, unknown>;

/** A pi-style UUIDv7 (time prefix from `ms`, the rest from the Rng). */
export function uuidV7(rng: Rng, ms: number): string {
  const time = Math.floor(ms).toString(16).padStart(12, "0").slice(-12);
  const variant = "89ab"[rng.int(0, 3)] as string;
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${rng.hex(3)}-${variant}${rng.hex(3)}-${rng.hex(12)}`;
}

export interface SessionBuilderOptions {
  readonly cwd: string;
  readonly startMs: number;
  readonly parentSession?: string;
  /** Fraction of turns (0..1) that carry research events; research sessions get a marker. */
  readonly research?: boolean;
  readonly subagent?: boolean;
}

export class SessionBuilder {
  readonly lines: string[] = [];
  readonly sessionId: string;
  readonly createdMs: number;
  bytes = 0;
  leafId: string | null = null;
  private clockMs: number;
  private readonly ids = new Set<string>();
  /** Ids of the active branch, root first (for labels, compactions and branch points). */
  private path: string[] = [];
  /** Indexes into `path` of the user messages on the active branch. */
  private userPathIndexes: number[] = [];
  private model: (typeof MODELS)[number];
  private sinceCompaction = 0;
  private compactEvery: number;
  private turns = 0;
  private pendingToolCalls: { id: string; name: string }[] = [];
  private researchSources = 0;

  constructor(
    private readonly rng: Rng,
    private readonly pools: TextPools,
    private readonly options: SessionBuilderOptions,
  ) {
    this.clockMs = options.startMs;
    this.createdMs = options.startMs;
    this.sessionId = uuidV7(rng, options.startMs);
    this.model = rng.pick(MODELS);
    this.compactEvery = rng.int(300_000, 700_000);
    const header: Json = {
      type: "session",
      version: 3,
      id: this.sessionId,
      timestamp: new Date(options.startMs).toISOString(),
      cwd: options.cwd,
    };
    if (options.parentSession !== undefined) header["parentSession"] = options.parentSession;
    this.push(header);
    this.entry({ type: "model_change", provider: this.model.provider, modelId: this.model.modelId });
    this.entry({ type: "thinking_level_change", thinkingLevel: rng.pick(THINKING_LEVELS) });
    if (options.subagent) {
      this.entry({
        type: "custom",
        customType: "leyline-subagent",
        data: { parentSession: options.parentSession ?? null, agent: "researcher", threadId: `t${rng.int(1, 5)}` },
      });
    }
    if (options.research) {
      this.research("session", { objective: this.prose(60, 200) });
      this.research("objective", { objective: this.prose(60, 300) });
    }
  }

  /** The file name pi gives this session: `<ISO timestamp with : and . as ->_<id>.jsonl`. */
  get fileName(): string {
    return `${new Date(this.createdMs).toISOString().replace(/[:.]/g, "-")}_${this.sessionId}.jsonl`;
  }

  get text(): string {
    return this.lines.join("\n") + "\n";
  }

  private push(value: Json): string {
    const line = JSON.stringify(value);
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line) + 1;
    this.sinceCompaction += line.length;
    return line;
  }

  private newId(): string {
    for (;;) {
      const id = this.rng.hex(8);
      if (!this.ids.has(id)) {
        this.ids.add(id);
        return id;
      }
    }
  }

  private tick(minMs: number, maxMs: number): number {
    this.clockMs += this.rng.int(minMs, maxMs);
    return this.clockMs;
  }

  /** Appends an entry as a child of `parentId` (default: the leaf) and makes it the leaf; returns its line. */
  entry(fields: Json, parentId: string | null = this.leafId): string {
    const id = this.newId();
    const ms = this.tick(200, 20_000);
    const line = this.push({ ...fields, id, parentId, timestamp: new Date(ms).toISOString() });
    if (parentId !== this.leafId) {
      const at = parentId === null ? -1 : this.path.lastIndexOf(parentId);
      this.path = this.path.slice(0, at + 1);
      this.userPathIndexes = this.userPathIndexes.filter((i) => i <= at);
    }
    if (fields["type"] === "message" && (fields["message"] as Json)["role"] === "user") {
      this.userPathIndexes.push(this.path.length);
    }
    this.path.push(id);
    this.leafId = id;
    return line;
  }

  private prose(min: number, max: number): string {
    return sliceOf(this.rng, this.pools.prose, this.rng.int(min, max));
  }

  private code(min: number, max: number): string {
    return sliceOf(this.rng, this.pools.code, this.rng.int(min, max));
  }

  private usage(): Json {
    const input = this.rng.int(500, 150_000);
    const output = this.rng.int(20, 4000);
    const cacheRead = this.rng.chance(0.7) ? this.rng.int(0, input) : 0;
    const cost = { input: input * 3e-6, output: output * 15e-6, cacheRead: cacheRead * 3e-7, cacheWrite: 0 };
    return {
      input,
      output,
      cacheRead,
      cacheWrite: 0,
      totalTokens: input + output + cacheRead,
      cost: { ...cost, total: cost.input + cost.output + cost.cacheRead },
    };
  }

  private message(message: Json, parentId?: string | null): string {
    return this.entry({ type: "message", message: { ...message, timestamp: this.clockMs } }, parentId);
  }

  userMessage(parentId?: string | null): string {
    const text = this.prose(40, 900);
    const content = this.rng.chance(0.15) ? text : [{ type: "text", text }];
    return this.message({ role: "user", content }, parentId);
  }

  private toolArguments(name: string): Json {
    const file = `${this.options.cwd}/src/${this.rng.hex(6)}/${this.rng.hex(5)}.ts`;
    switch (name) {
      case "bash":
        return { command: this.rng.pick(["npm test", "git status", "ls -la", "npx tsc --noEmit", "rg leafId"]) };
      case "edit":
        return { path: file, oldText: this.code(40, 600), newText: this.code(40, 800) };
      case "write":
        return { path: file, content: this.code(200, 1800) };
      case "grep":
        return { pattern: this.prose(4, 20), path: this.options.cwd };
      default:
        return { path: file };
    }
  }

  /** An assistant message; with `toolCalls` > 0 it stops with toolUse and leaves calls pending. */
  assistantMessage(toolCalls: number): string {
    const content: Json[] = [];
    if (this.rng.chance(0.6)) {
      content.push({ type: "thinking", thinking: this.prose(80, 1400), thinkingSignature: this.rng.hex(64) });
    }
    if (toolCalls === 0 || this.rng.chance(0.5)) content.push({ type: "text", text: this.prose(40, 1200) });
    this.pendingToolCalls = [];
    for (let i = 0; i < toolCalls; i++) {
      const name = this.rng.pick(TOOLS);
      const id = `toolu_${this.rng.hex(24)}`;
      this.pendingToolCalls.push({ id, name });
      content.push({ type: "toolCall", id, name, arguments: this.toolArguments(name) });
    }
    const stopReason = toolCalls > 0 ? "toolUse" : this.rng.chance(0.03) ? "aborted" : "stop";
    return this.message({
      role: "assistant",
      content,
      api: this.model.api,
      provider: this.model.provider,
      model: this.model.modelId,
      usage: this.usage(),
      stopReason,
    });
  }

  /** The toolResult messages of the pending tool calls. */
  toolResults(): string[] {
    const lines: string[] = [];
    for (const call of this.pendingToolCalls) {
      const big = this.rng.chance(0.08);
      const output = this.code(big ? 3000 : 150, big ? 4800 : 2600);
      const isError = this.rng.chance(0.05);
      const message: Json = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: output }],
        isError,
      };
      if (call.name === "bash") message["details"] = { exitCode: isError ? 1 : 0, truncated: big };
      if (call.name === "edit") message["details"] = { diff: this.code(60, 500), firstChangedLine: this.rng.int(1, 300) };
      lines.push(this.message(message));
    }
    this.pendingToolCalls = [];
    return lines;
  }

  private research(kind: string, fields: Json): void {
    this.entry({
      type: "custom",
      customType: "leyline-research",
      data: { version: 1, sessionId: this.sessionId, kind, ...fields },
    });
  }

  private researchStep(): void {
    const thread = `t${this.rng.int(1, 4)}`;
    switch (this.rng.int(0, 3)) {
      case 0:
        this.research("plan", {
          strategy: this.prose(60, 300),
          threads: [1, 2, 3].map((n) => ({ id: `t${n}`, title: this.prose(10, 40), task: this.prose(40, 200) })),
        });
        return;
      case 1:
        this.research("thread", {
          thread: { id: thread, status: this.rng.pick(["running", "done"]), summary: this.prose(40, 400) },
        });
        return;
      case 2:
        this.researchSources += 1;
        this.research("source", {
          source: {
            url: `https://example.org/${this.rng.hex(6)}/${this.researchSources}`,
            title: this.prose(10, 60),
            publisher: "Example",
            publishedAt: "2025-01-01",
            kind: "web",
            status: "candidate",
            threadId: thread,
            claim: this.prose(40, 200),
            evidence: this.prose(60, 400),
          },
        });
        return;
      default:
        this.research("phase", { phase: this.rng.pick(["gather", "synthesize"]) });
    }
  }

  /** One user turn: the prompt, 0-6 tool rounds, a final answer, and the occasional extra entry. */
  turn(): void {
    this.turns += 1;
    const branch = this.userPathIndexes.length >= 3 && this.rng.chance(0.04);
    if (branch) {
      // navigateTree to an earlier user message: the leaf moves to its parent, maybe with a branch summary.
      const at = this.rng.pick(this.userPathIndexes.slice(0, -1));
      const target = at > 0 ? (this.path[at - 1] as string) : null;
      if (target !== null && this.rng.chance(0.5)) {
        this.entry({ type: "branch_summary", fromId: this.leafId, summary: this.prose(300, 1500) }, target);
        this.userMessage();
      } else {
        this.userMessage(target);
      }
    } else {
      if (this.rng.chance(0.04)) {
        this.model = this.rng.pick(MODELS);
        this.entry({ type: "model_change", provider: this.model.provider, modelId: this.model.modelId });
      }
      if (this.rng.chance(0.04)) this.entry({ type: "thinking_level_change", thinkingLevel: this.rng.pick(THINKING_LEVELS) });
      if (this.rng.chance(0.02)) {
        this.entry({
          type: "custom_message",
          customType: "ext-note",
          content: this.prose(40, 400),
          display: true,
          details: { source: "extension" },
        });
      }
      this.userMessage();
    }
    const rounds = this.rng.int(0, 6);
    for (let i = 0; i < rounds; i++) {
      this.assistantMessage(this.rng.int(1, 3));
      this.toolResults();
    }
    this.assistantMessage(0);
    if (this.rng.chance(0.05)) {
      this.message({
        role: "bashExecution",
        command: this.rng.pick(["ls", "git log --oneline | head", "npm run build", "cat package.json"]),
        output: this.code(100, 3000),
        exitCode: this.rng.chance(0.9) ? 0 : 1,
        cancelled: false,
        truncated: false,
      });
    }
    if (this.turns === 1 && this.rng.chance(0.4)) this.entry({ type: "session_info", name: this.prose(8, 50) });
    if (this.rng.chance(0.04)) {
      const target = this.rng.pick(this.path);
      this.entry({ type: "label", targetId: target, label: this.rng.chance(0.8) ? this.prose(3, 20) : undefined });
    }
    if (this.rng.chance(0.05)) {
      this.entry({ type: "custom", customType: "ext-state", data: { counter: this.turns, note: this.prose(10, 200) } });
    }
    if (this.options.research && this.rng.chance(0.6)) this.researchStep();
    if (this.sinceCompaction > this.compactEvery && this.path.length > 20) {
      const kept = this.path[this.path.length - this.rng.int(6, 20)] as string;
      this.entry({
        type: "compaction",
        summary: this.prose(1200, 4500),
        firstKeptEntryId: kept,
        tokensBefore: this.rng.int(100_000, 190_000),
      });
      this.sinceCompaction = 0;
    }
  }

  /**
   * Adds turns until the file is about `bytes` long: at least one turn, then stops when half an average turn
   * more would pass the target (so the sizes of many files add up to their targets on average).
   */
  fillTo(bytes: number): void {
    let turns = 0;
    const start = this.bytes;
    do {
      this.turn();
      turns += 1;
    } while (this.bytes + (this.bytes - start) / turns / 2 < bytes);
  }

  /**
   * A builder that continues this session from its current leaf with its own Rng and no lines of its own
   * (the header and entries so far are already written); the original is left as it was.
   */
  continuation(rng: Rng): SessionBuilder {
    const copy = Object.create(SessionBuilder.prototype) as SessionBuilder;
    Object.assign(copy, this, {
      rng,
      lines: [],
      bytes: 0,
      ids: new Set(this.ids),
      path: [...this.path],
      userPathIndexes: [...this.userPathIndexes],
      pendingToolCalls: [...this.pendingToolCalls],
    });
    return copy;
  }

  /**
   * The next lines a live pi session would append at the leaf, one entry per call: an assistant message with
   * one tool call, then its toolResult, and so on (the common append; each is a child of the leaf).
   */
  nextAppendedLine(): string {
    if (this.pendingToolCalls.length > 0) {
      const call = this.pendingToolCalls[0] as { id: string; name: string };
      this.pendingToolCalls = [call];
      return this.toolResults()[0] as string;
    }
    return this.assistantMessage(1);
  }
}
