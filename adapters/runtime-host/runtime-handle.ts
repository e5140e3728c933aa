/**
 * `RuntimeHandle`: the runtime actions of one open session (spec "Runtime action routes"), on top of the
 * worker, queue and snapshot plumbing of `RuntimeHandleCore`. Every method throws `RuntimeHostError` with the
 * status the API should answer; the API adds `detail` (SessionDetail) where the spec asks for it.
 *
 * Statuses: bad bodies 400; queue errors via `promptQueueErrorStatus` (stale revision 409, others 400);
 * confirmation no longer pending 409; paused runtime 409; blocked actions and worker failures 500 (as the
 * spec's status lines say for reload, compact, bash, model).
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { isEmptyPromptText } from "../../domain/prompt-queue/prompt-queue.decider.ts";
import { parseQueueRequest, promptQueueErrorStatus } from "../../domain/prompt-queue/prompt-queue-request.ts";
import type { PromptQueueDecision } from "../../domain/prompt-queue/prompt-queue-types.ts";
import { type Active, PROMPT_IMAGE_MIME_TYPES } from "../../domain/runtime/runtime-types.ts";
import { ULTRAFAST_COMMAND, ULTRAFAST_UNAVAILABLE_MESSAGE } from "../../domain/runtime/ultrafast.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import {
  type BashResultInfo,
  type CompactionResultInfo,
  type RuntimeSnapshot,
  THINKING_LEVELS,
  type ThinkingLevelName,
} from "../runtime-protocol/runtime-protocol.ts";
import { leylineTrashDirOf, resolveAgentDir } from "../session-files/agent-dir.ts";
import { normalizeSessionName, parseModelBody, parsePromptBody, parseUltrafastEnabled } from "./runtime-action-bodies.ts";
import { type OpenTarget, RuntimeHandleCore } from "./runtime-handle-core.ts";
import { RuntimeHostError, SESSION_NOT_FOUND } from "./runtime-host-error.ts";
import { checkResetEntry, resetSessionFile } from "./session-reset.ts";

export { type HostEvent, type OpenTarget, type RuntimeHandleOptions, type RuntimeStatus } from "./runtime-handle-core.ts";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The saved entries of a session file, in file order (none when the file does not exist yet). */
function savedEntries(file: string | null): SessionEntry[] {
  if (file === null || !fs.existsSync(file)) return [];
  const { records } = decodeSessionText(fs.readFileSync(file, "utf8"));
  return records.flatMap((record) => (record.kind === "entry" ? [record.entry] : []));
}

function isUserMessage(entry: SessionEntry): boolean {
  return entry.type === "message" && entry.message.role === "user";
}

function queueFailure(decision: PromptQueueDecision): RuntimeHostError | null {
  if (decision.ok) return null;
  return new RuntimeHostError(promptQueueErrorStatus(decision.error.code), decision.error.message);
}


export const ULTRAFAST_COMMAND_MISSING = "Ultrafast is not available in this runtime (the Ultrafast command is not loaded)";

export class RuntimeHandle extends RuntimeHandleCore {
  /** The session file existed at some point (opened from it, or seen after pi wrote it). */
  private fileSeen = false;

  private touch(): void {
    this.lastActivityAt = this.options.clock.now();
  }

  override async start(target: OpenTarget): Promise<void> {
    await super.start(target);
    if ("sessionFile" in target) this.fileSeen = true;
  }

  protected override applySnapshot(snapshot: RuntimeSnapshot): void {
    super.applySnapshot(snapshot);
    if (!this.fileSeen && this.sessionFile !== null && fs.existsSync(this.sessionFile)) this.fileSeen = true;
  }

  /**
   * The session's file was removed behind the runtime's back (deleted by hand, by another tool). Acting on
   * it would make pi append entries to a new file without a header, so every action answers 404 instead.
   * A new session whose file pi has not written yet is not deleted.
   */
  fileDeleted(): boolean {
    const file = this.sessionFile;
    if (file === null) return false;
    if (fs.existsSync(file)) {
      this.fileSeen = true;
      return false;
    }
    return this.fileSeen;
  }

  /** Every action's start: 404 for a deleted session file, then the worker (awaiting its start), then activity. */
  private async ready(): Promise<void> {
    if (this.fileDeleted()) throw new RuntimeHostError(404, SESSION_NOT_FOUND);
    await this.worker();
    this.touch();
  }

  private requireIdle(action: string): void {
    if (this.state.isStreaming) throw new RuntimeHostError(500, `Cannot ${action} while the session is streaming`);
    if (this.state.isCompacting) throw new RuntimeHostError(500, `Cannot ${action} while the session is compacting`);
    if (this.runStarting > 0 || this.dispatchProbe) throw new RuntimeHostError(500, `Cannot ${action} while a prompt is being set up`);
    if (this.stopping) throw new RuntimeHostError(500, `Cannot ${action} while Stop is in progress`);
    if (this.configChange !== null) throw new RuntimeHostError(500, `Cannot ${action} during the ${this.configChange}`);
  }

  /** Runs a model or Ultrafast change under the submission lock, then lets queue dispatch resume. */
  private async underSubmissionLock(change: "model change" | "Ultrafast change", run: () => Promise<void>): Promise<Active> {
    this.configChange = change;
    try {
      await run();
    } finally {
      this.configChange = null;
    }
    this.scheduleDispatch();
    return this.active();
  }

  /** POST .../prompt → `{ queued, active }` (the API adds `ok: true`). */
  async prompt(body: unknown): Promise<{ queued: boolean; active: Active }> {
    const request = parsePromptBody(body);
    await this.ready();
    if (this.configChange !== null) throw new RuntimeHostError(500, `Cannot send a prompt during the ${this.configChange}`);
    const commandName = request.text.startsWith("/") ? (request.text.slice(1).split(/\s/, 1)[0] ?? "") : "";
    const extensionCommand = commandName !== "" && this.state.slashCommands.some((c) => c.source === "extension" && c.name === commandName);
    const decision = this.runQueue({
      type: "enqueue",
      id: randomUUID(),
      now: this.options.clock.now(),
      text: request.text,
      images: request.images,
      streamingBehavior: request.streamingBehavior,
      kind: request.kind ?? this.kind ?? "session",
      handoffId: request.handoffId,
      busy: this.busy(),
      extensionCommand,
    });
    const failure = queueFailure(decision);
    if (failure) throw failure;
    if (!decision.ok) throw new RuntimeHostError(500, "unreachable");
    if (decision.submission) await this.submit(decision.submission, request.streamingBehavior);
    else this.scheduleDispatch();
    return { queued: decision.queued, active: this.active() };
  }

  /**
   * POST .../edit-prompt `{ entryId, text, images? }` → `active` once pi's prompt preflight succeeded.
   * The entry must be a saved user message (unknown 404, other entries 400); empty text needs an image (400);
   * the runtime must be idle (500, as for the other blocked actions). pi's `navigateTree` to a user message
   * moves the leaf to that message's parent; the replacement then goes through the prompt submission, so pi
   * appends it as a sibling of the original (a new branch; the old one stays in the file). When the
   * submission fails, the leaf is moved back to where it was (best effort) and the failure answers 500.
   */
  async editPrompt(entryId: unknown, text: unknown, images?: unknown): Promise<Active> {
    if (typeof entryId !== "string" || entryId === "") throw new RuntimeHostError(400, "entryId must be a non-empty string");
    const request = parsePromptBody({ text, ...(images !== undefined ? { images } : {}) });
    const badImage = request.images.find((image) => image.data === "" || !(PROMPT_IMAGE_MIME_TYPES as readonly string[]).includes(image.mimeType));
    if (badImage) throw new RuntimeHostError(400, badImage.data === "" ? "Invalid image" : `Unsupported image type: ${badImage.mimeType}`);
    if (isEmptyPromptText(request.text) && request.images.length === 0) throw new RuntimeHostError(400, "Prompt text is empty and has no images");
    await this.ready();
    const entries = savedEntries(this.sessionFile);
    const entry = entries.find((candidate) => candidate.id === entryId);
    if (!entry) throw new RuntimeHostError(404, `Entry ${entryId} not found`);
    if (!isUserMessage(entry)) throw new RuntimeHostError(400, `Entry ${entryId} is not a user message`);
    this.requireIdle("edit a prompt");
    if (this.queueState.items.some((item) => item.status === "sending")) throw new RuntimeHostError(500, "Cannot edit a prompt while a prompt is being set up");
    const previousLeaf = entries.at(-1) ?? null;
    // Counts as a prompt being set up from here on: blocks queue dispatch and other actions until pi runs.
    this.runStarting += 1;
    try {
      const moved = await this.call("navigateTree", { targetId: entryId });
      if (moved.cancelled) throw new RuntimeHostError(500, "The edit was cancelled by an extension");
      try {
        await this.submit({ via: "prompt", taskId: null, text: request.text, images: request.images, handoffId: null }, null);
      } catch (error) {
        if (previousLeaf !== null && !isUserMessage(previousLeaf)) await this.call("navigateTree", { targetId: previousLeaf.id }).catch(() => {});
        throw error;
      }
    } finally {
      this.runStarting -= 1;
    }
    if (!this.busy()) this.scheduleDispatch();
    return this.active();
  }

  /** POST /api/pi/sessions/:id/queue → `active`. */
  async queue(body: unknown): Promise<Active> {
    await this.ready();
    const parsed = parseQueueRequest(body, { stopping: this.stopping });
    if (!parsed.ok) throw new RuntimeHostError(promptQueueErrorStatus(parsed.error.code), parsed.error.message);
    const decision = this.runQueue(parsed.command);
    const failure = queueFailure(decision);
    if (failure) throw failure;
    if (decision.ok && decision.submission) await this.submit(decision.submission, null);
    this.scheduleDispatch();
    return this.active();
  }

  /** Holds the remaining tasks, cancels unaccepted submissions and pending confirmations, aborts pi's run. */
  async interrupt(): Promise<Active> {
    await this.ready();
    this.stopping = true;
    try {
      this.holdQueueFor({ type: "interrupt" });
      this.dropConfirmations();
      this.applySnapshot(await this.call("abort", {}));
    } finally {
      this.stopping = false;
    }
    return this.active();
  }

  async compact(customInstructions?: unknown): Promise<{ result: CompactionResultInfo; active: Active }> {
    if (customInstructions !== undefined && typeof customInstructions !== "string") throw new RuntimeHostError(400, "customInstructions must be a string");
    await this.ready();
    this.requireIdle("compact");
    const result = await this.call("compact", customInstructions !== undefined ? { customInstructions } : {}, { timeoutMs: 600_000 });
    await this.refresh();
    return { result, active: this.active() };
  }

  async bash(body: unknown): Promise<{ result: BashResultInfo; active: Active }> {
    if (!isRecord(body) || typeof body["command"] !== "string") throw new RuntimeHostError(400, "command must be a string");
    const excludeFromContext = body["excludeFromContext"];
    if (excludeFromContext !== undefined && typeof excludeFromContext !== "boolean") throw new RuntimeHostError(400, "excludeFromContext must be a boolean");
    const command = body["command"];
    if (command.trim() === "") throw new RuntimeHostError(500, "Command is empty");
    await this.ready();
    if (this.bashRunning) throw new RuntimeHostError(500, "A shell command is already running");
    this.bashRunning = true;
    try {
      const result = await this.call("bash", { command, ...(excludeFromContext !== undefined ? { excludeFromContext } : {}) }, { timeoutMs: 0 });
      await this.refresh();
      return { result, active: this.active() };
    } finally {
      this.bashRunning = false;
    }
  }

  /** POST .../model `{ provider, id }`: a bad body 400, an unknown model or a busy runtime 500 (spec). */
  async setModel(body: unknown): Promise<Active> {
    const { provider, id } = parseModelBody(body);
    await this.ready();
    this.requireIdle("change the model");
    if (!this.state.availableModels.some((model) => model.provider === provider && model.id === id)) {
      throw new RuntimeHostError(500, `Unknown model ${provider}/${id}`);
    }
    return this.underSubmissionLock("model change", async () => {
      this.applySnapshot(await this.call("setModel", { provider, modelId: id }));
    });
  }

  /**
   * POST .../ultrafast `{ enabled }` (spec "Set Ultrafast"): runs the bundled `/ultrafast on|off` command in
   * the worker (awaiting the command) and answers the resulting `active`; the mode is read from
   * `state.extensionUi.statuses["leyline-ultrafast"]`. Invalid `enabled` answers 400; a missing command, an
   * ineligible model (enabling only) and a busy runtime answer 500. The change counts as a prompt being set up, so
   * queue dispatch waits for it.
   */
  async setUltrafast(enabled: unknown): Promise<Active> {
    parseUltrafastEnabled(enabled);
    await this.ready();
    this.requireIdle("change Ultrafast");
    if (this.queueState.items.some((item) => item.status === "sending")) throw new RuntimeHostError(500, "Cannot change Ultrafast while a prompt is being set up");
    if (!this.state.slashCommands.some((command) => command.source === "extension" && command.name === ULTRAFAST_COMMAND)) {
      throw new RuntimeHostError(500, ULTRAFAST_COMMAND_MISSING);
    }
    if (enabled && this.state.model?.supportsUltrafast !== true) throw new RuntimeHostError(500, ULTRAFAST_UNAVAILABLE_MESSAGE);
    return this.underSubmissionLock("Ultrafast change", async () => {
      await this.call("prompt", { text: `/${ULTRAFAST_COMMAND} ${enabled ? "on" : "off"}`, awaitCompletion: true });
      await this.refresh();
    });
  }

  /** POST .../thinking `{ level }`: the level must be one of `availableThinkingLevels` (400 otherwise). */
  async setThinkingLevel(level: unknown): Promise<Active> {
    if (typeof level !== "string") throw new RuntimeHostError(400, "level must be a string");
    await this.ready();
    if (!this.state.availableThinkingLevels.includes(level) || !(THINKING_LEVELS as readonly string[]).includes(level)) {
      throw new RuntimeHostError(400, `Thinking level ${level} is not available (available: ${this.state.availableThinkingLevels.join(", ")})`);
    }
    this.applySnapshot(await this.call("setThinkingLevel", { level: level as ThinkingLevelName }));
    return this.active();
  }

  /** Reloads pi's resources at the current leaf; unsent tasks stay, held. */
  async reload(): Promise<Active> {
    await this.ready();
    this.requireIdle("reload");
    if (this.queueState.items.some((item) => item.status === "sending")) throw new RuntimeHostError(500, "Cannot reload while a prompt is being set up");
    this.holdQueueFor({ type: "reload" });
    this.dropConfirmations();
    this.feed([{ type: "extensionUiReset" }]);
    this.applySnapshot(await this.call("reload", {}, { timeoutMs: 120_000 }));
    return this.active();
  }

  /** PATCH /api/pi/sessions/:id `{ name }`: whitespace collapsed, empty rejected (400). */
  async rename(name: unknown): Promise<Active> {
    const normalized = normalizeSessionName(name);
    await this.ready();
    this.applySnapshot(await this.call("setSessionName", { name: normalized }));
    return this.active();
  }

  /** POST .../extension-confirmations/:requestId `{ confirmed }`. */
  async confirm(requestId: string, confirmed: unknown): Promise<void> {
    if (typeof confirmed !== "boolean") throw new RuntimeHostError(400, "confirmed must be a boolean");
    await this.ready();
    if (!this.hasPendingConfirmation(requestId)) throw new RuntimeHostError(409, "Confirmation is no longer pending");
    const { delivered } = await this.call("extensionUiReply", { requestId, confirmed });
    this.resolveConfirmation(requestId);
    if (!delivered) throw new RuntimeHostError(409, "Confirmation is no longer pending");
  }

  /**
   * Reset to here: the file ends at `entryId` afterwards; the original file is copied (byte for byte) to
   * `<agentDir>/leyline-trash` first (`trashPath`). The worker is disposed during the rewrite and a new one
   * reopens the file; the queue is held as on reload. See session-reset.ts.
   */
  async resetToEntry(entryId: unknown): Promise<{ trashPath: string; active: Active }> {
    if (typeof entryId !== "string" || entryId === "") throw new RuntimeHostError(400, "entryId must be a non-empty string");
    await this.ready();
    this.requireIdle("reset");
    const file = this.sessionFile;
    if (file === null || !fs.existsSync(file)) throw new RuntimeHostError(500, "The session has no saved file yet");
    // Validates the entry (404 unknown, 400 off the active branch) before anything is stopped.
    checkResetEntry(file, entryId);
    this.holdQueueFor({ type: "reload" });
    this.dropConfirmations();
    this.feed([{ type: "extensionUiReset" }]);
    this.status = "recovering";
    await this.stopWorker();
    let trashPath: string;
    try {
      trashPath = resetSessionFile(file, entryId, { trashDir: this.trashDir, now: this.options.clock.now() }).trashPath;
    } finally {
      // the worker comes back whether or not the rewrite happened
      await this.startWorker({ sessionFile: file });
      this.status = "ready";
    }
    return { trashPath, active: this.active() };
  }

  /** `<agentDir>/leyline-trash` (the host's; PI_CODING_AGENT_DIR's for a handle made without one). */
  get trashDir(): string {
    return this.options.trashDir ?? leylineTrashDirOf(resolveAgentDir());
  }

  /**
   * Runs one prompt to completion (subagent children, adapters/subagents): the worker replies after pi's whole
   * run, without a timeout (`interrupt` or closing the runtime ends it). Meanwhile the runtime counts as a
   * prompt being set up, so it is busy for eviction, idle cleanup and queue dispatch. Text must not be empty
   * (400); a busy runtime answers 500; a failed run (preflight, worker exit) throws 500.
   */
  async runToCompletion(text: unknown): Promise<Active> {
    if (typeof text !== "string" || text.trim() === "") throw new RuntimeHostError(400, "text must be a non-empty string");
    await this.ready();
    this.requireIdle("run a task");
    this.runStarting += 1;
    this.lastProgressAt = this.options.clock.now();
    try {
      await this.call("prompt", { text, awaitCompletion: true }, { timeoutMs: 0 });
    } finally {
      this.runStarting -= 1;
    }
    await this.refresh();
    return this.active();
  }

  /** Used by the host's fork: opens `sourceFile` in this (fresh) handle's worker and forks there. */
  async startFork(sourceFile: string, entryId: string, position: "before" | "at"): Promise<void> {
    // An unknown entry is the client's error (404), not a worker failure: checked before a worker starts.
    if (!savedEntries(sourceFile).some((entry) => entry.id === entryId)) throw new RuntimeHostError(404, `Entry ${entryId} not found`);
    await this.start({ sessionFile: sourceFile });
    const result = await this.call("fork", { entryId, position });
    if (result.cancelled) throw new RuntimeHostError(500, "The fork was cancelled by an extension");
    this.applySnapshot(result.snapshot);
  }
}
