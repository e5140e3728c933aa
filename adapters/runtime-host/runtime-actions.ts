/**
 * The runtime actions of one open session (spec "Runtime action routes"), carried out on the runtime's parts
 * (runtime-handle.ts wires them and exposes these as its methods). Every action throws `RuntimeHostError`
 * with the error code the API answers (domain/contract/error-codes.ts); the API adds `detail` (SessionDetail)
 * where the spec asks for it. Bodies arrive typed: the routes' schemas checked them
 * (domain/contract/http-runtime-actions.ts); the rules left here are the ones that need the runtime's state.
 *
 * Codes: queue errors via `promptQueueErrorCode` (stale revision conflict, others invalid_request);
 * confirmation no longer pending and a paused runtime conflict; blocked actions action_blocked and worker
 * failures runtime_failed (500, as the spec's status lines say for reload, compact, bash, model).
 */
import * as fs from "node:fs";
import { isEmptyPromptText } from "../../domain/prompt-queue/prompt-queue.decider.ts";
import type { Static } from "typebox";
import type { RUNTIME_ACTIONS } from "../../domain/contract/http-runtime-actions.ts";
import { promptQueueErrorCode, queueCommand, type QueueRequestBody } from "../../domain/prompt-queue/prompt-queue-request.ts";
import { type Active, PROMPT_IMAGE_MIME_TYPES, type PromptImage } from "../../domain/runtime/runtime-types.ts";
import { ULTRAFAST_COMMAND, ULTRAFAST_UNAVAILABLE_MESSAGE } from "../../domain/runtime/ultrafast.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import {
  type BashResultInfo,
  type CompactionResultInfo,
  type RuntimeResultMap,
  THINKING_LEVELS,
  type ThinkingLevelName,
} from "../runtime-protocol/runtime-protocol.ts";
import type { ConfirmationTimers } from "./confirmation-timers.ts";
import type { HostClock } from "./host-clock.ts";
import type { PromptDispatcher } from "./prompt-dispatcher.ts";
import { normalizeSessionName, promptBody, type PromptRequest } from "./runtime-action-bodies.ts";
import { RuntimeHostError, SESSION_NOT_FOUND } from "./runtime-host-error.ts";
import type { RuntimeSupervision } from "./runtime-supervision.ts";
import { checkResetEntry, resetSessionFile } from "./session-reset.ts";
import type { SnapshotPublisher } from "./snapshot-publisher.ts";

export const ULTRAFAST_COMMAND_MISSING = "Ultrafast is not available in this runtime (the Ultrafast command is not loaded)";

type BashRequest = Static<(typeof RUNTIME_ACTIONS)["bash"]["body"]>;
type ModelRequest = Static<(typeof RUNTIME_ACTIONS)["model"]["body"]>;
type NavigateRequest = Static<(typeof RUNTIME_ACTIONS)["navigate"]["body"]>;

/** The saved entries of a session file, in file order (none when the file does not exist yet). */
export function savedEntries(file: string | null): SessionEntry[] {
  if (file === null || !fs.existsSync(file)) return [];
  const { records } = decodeSessionText(fs.readFileSync(file, "utf8"));
  return records.flatMap((record) => (record.kind === "entry" ? [record.entry] : []));
}

function isUserMessage(entry: SessionEntry): boolean {
  return entry.type === "message" && entry.message.role === "user";
}

/**
 * Runs a worker call about `entryId`; pi's "Entry <id> not found" (the worker checks with pi's own index, so the
 * control plane never parses the file for it) answers 404.
 */
async function entryCall<T>(entryId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const missing = `Entry ${entryId} not found`;
    if (error instanceof RuntimeHostError && error.message.endsWith(missing)) throw new RuntimeHostError("entry_not_found", missing);
    throw error;
  }
}

export interface RuntimeParts {
  clock: HostClock;
  supervision: RuntimeSupervision;
  publisher: SnapshotPublisher;
  dispatcher: PromptDispatcher;
  confirmations: ConfirmationTimers;
  /** `<agentDir>/leyline-trash` for reset copies. */
  trashDir: () => string;
  /** What the worker had going is over: unsent tasks held, dialogs cancelled, extension UI reset. */
  forgetWorkerState: () => void;
}

export type RuntimeActions = ReturnType<typeof createRuntimeActions>;

export function createRuntimeActions(parts: RuntimeParts) {
  const { clock, supervision, publisher, dispatcher, confirmations } = parts;

  /** Every action's start: 404 for a deleted session file, then the worker (awaiting its start), then activity. */
  const ready = async (): Promise<void> => {
    if (publisher.fileDeleted()) throw new RuntimeHostError("session_not_found", SESSION_NOT_FOUND);
    await supervision.worker();
    supervision.noteActivity();
  };

  const refresh = async (): Promise<void> => {
    publisher.applySnapshot(await supervision.call("snapshot", {}));
  };

  const hasExtensionCommand = (name: string): boolean =>
    publisher.state().slashCommands.some((command) => command.source === "extension" && command.name === name);

  return {
    /** POST .../prompt → `{ queued, active }` (the API adds `ok: true`). */
    async prompt(body: PromptRequest): Promise<{ queued: boolean; active: Active }> {
      const request = promptBody(body);
      await ready();
      const commandName = request.text.startsWith("/") ? (request.text.slice(1).split(/\s/, 1)[0] ?? "") : "";
      const queued = await dispatcher.prompt(request, {
        kind: request.kind ?? publisher.identity().kind ?? "session",
        extensionCommand: commandName !== "" && hasExtensionCommand(commandName),
      });
      return { queued, active: publisher.active() };
    },

    /**
     * POST .../edit-prompt `{ entryId, text, images? }` → `active` once pi's prompt preflight succeeded.
     * The entry must be a saved user message (unknown 404, other entries 400); empty text needs an image (400);
     * the runtime must be idle (500, as for the other blocked actions). pi's `navigateTree` to a user message
     * moves the leaf to that message's parent; the replacement then goes through the prompt submission, so pi
     * appends it as a sibling of the original (a new branch; the old one stays in the file). When the
     * submission fails, the leaf is moved back to where it was (best effort) and the failure answers 500.
     */
    async editPrompt(entryId: string, text: string, images?: PromptRequest["images"]): Promise<Active> {
      const request = promptBody({ text, ...(images !== undefined ? { images } : {}) });
      const badImage = request.images.find(
        (image) => image.data === "" || !(PROMPT_IMAGE_MIME_TYPES as readonly string[]).includes(image.mimeType),
      );
      if (badImage)
        throw new RuntimeHostError(
          "invalid_request",
          badImage.data === "" ? "Invalid image" : `Unsupported image type: ${badImage.mimeType}`,
        );
      if (isEmptyPromptText(request.text) && request.images.length === 0)
        throw new RuntimeHostError("invalid_request", "Prompt text is empty and has no images");
      await ready();
      const entries = savedEntries(publisher.identity().sessionFile);
      const entry = entries.find((candidate) => candidate.id === entryId);
      if (!entry) throw new RuntimeHostError("entry_not_found", `Entry ${entryId} not found`);
      if (!isUserMessage(entry)) throw new RuntimeHostError("invalid_request", `Entry ${entryId} is not a user message`);
      dispatcher.requireIdle("edit a prompt");
      dispatcher.requireNoTaskInFlight("edit a prompt");
      // Where pi's leaf is now: the file's last entry, or where a /tree navigation moved it without writing.
      const moved = publisher.movedLeaf();
      const previousLeaf =
        moved === null ? (entries.at(-1) ?? null) : moved.leafId === null ? null : (entries.find((e) => e.id === moved.leafId) ?? null);
      // Counts as a prompt being set up from here on: blocks queue dispatch and other actions until pi runs.
      await dispatcher.whileSettingUp(async () => {
        // Images the model cannot read are checked (and saved) before the tree moves: a refusal changes nothing.
        await dispatcher.prepareImages(request.images);
        const moved = await supervision.call("navigateTree", { targetId: entryId });
        if (moved.cancelled) throw new RuntimeHostError("runtime_failed", "The edit was cancelled by an extension");
        try {
          await dispatcher.submit({ via: "prompt", taskId: null, text: request.text, images: request.images, handoffId: null }, null);
        } catch (error) {
          if (previousLeaf !== null && !isUserMessage(previousLeaf))
            await supervision.call("navigateTree", { targetId: previousLeaf.id }).catch(() => {});
          throw error;
        }
      });
      dispatcher.dispatchIfIdle();
      return publisher.active();
    },

    /** POST /api/pi/sessions/:id/queue → `active`. */
    async queue(body: QueueRequestBody): Promise<Active> {
      await ready();
      const parsed = queueCommand(body, { stopping: dispatcher.stopping() });
      if (!parsed.ok) throw new RuntimeHostError(promptQueueErrorCode(parsed.error.code), parsed.error.message);
      await dispatcher.mutate(parsed.command);
      return publisher.active();
    },

    /** Holds the remaining tasks, cancels unaccepted submissions and pending confirmations, aborts pi's run. */
    async interrupt(): Promise<Active> {
      await ready();
      await dispatcher.whileStopping(async () => {
        dispatcher.hold({ type: "interrupt" });
        confirmations.dropAll();
        publisher.applySnapshot(await supervision.call("abort", {}));
      });
      return publisher.active();
    },

    async compact(customInstructions?: string): Promise<{ result: CompactionResultInfo; active: Active }> {
      await ready();
      dispatcher.requireIdle("compact");
      const result = await supervision.call("compact", customInstructions !== undefined ? { customInstructions } : {}, {
        timeoutMs: 600_000,
      });
      await refresh();
      return { result, active: publisher.active() };
    },

    async bash(body: BashRequest): Promise<{ result: BashResultInfo; active: Active }> {
      const { command, excludeFromContext } = body;
      if (command.trim() === "") throw new RuntimeHostError("runtime_failed", "Command is empty");
      await ready();
      return dispatcher.whileShellCommand(async () => {
        const result = await supervision.call(
          "bash",
          { command, ...(excludeFromContext !== undefined ? { excludeFromContext } : {}) },
          { timeoutMs: 0 },
        );
        await refresh();
        return { result, active: publisher.active() };
      });
    },

    /** POST .../model `{ provider, id }`: a bad body 400, an unknown model or a busy runtime 500 (spec). */
    async setModel(body: ModelRequest): Promise<Active> {
      const { provider, id } = body;
      await ready();
      dispatcher.requireIdle("change the model");
      if (!publisher.state().availableModels.some((model) => model.provider === provider && model.id === id)) {
        throw new RuntimeHostError("runtime_failed", `Unknown model ${provider}/${id}`);
      }
      await dispatcher.underSubmissionLock("model change", async () => {
        publisher.applySnapshot(await supervision.call("setModel", { provider, modelId: id }));
      });
      return publisher.active();
    },

    /**
     * POST .../ultrafast `{ enabled }` (spec "Set Ultrafast"): runs the bundled `/ultrafast on|off` command in
     * the worker (awaiting the command) and answers the resulting `active`; the mode is read from
     * `state.extensionUi.statuses["leyline-ultrafast"]`. Invalid `enabled` answers 400; a missing command, an
     * ineligible model (enabling only) and a busy runtime answer 500. The change holds the submission lock, so
     * queue dispatch waits for it.
     */
    async setUltrafast(enabled: boolean): Promise<Active> {
      await ready();
      dispatcher.requireIdle("change Ultrafast");
      dispatcher.requireNoTaskInFlight("change Ultrafast");
      if (!hasExtensionCommand(ULTRAFAST_COMMAND)) throw new RuntimeHostError("runtime_failed", ULTRAFAST_COMMAND_MISSING);
      if (enabled && publisher.state().model?.supportsUltrafast !== true)
        throw new RuntimeHostError("runtime_failed", ULTRAFAST_UNAVAILABLE_MESSAGE);
      await dispatcher.underSubmissionLock("Ultrafast change", async () => {
        await supervision.call("prompt", { text: `/${ULTRAFAST_COMMAND} ${enabled ? "on" : "off"}`, awaitCompletion: true });
        await refresh();
      });
      return publisher.active();
    },

    /** POST .../thinking `{ level }`: the level must be one of `availableThinkingLevels` (400 otherwise). */
    async setThinkingLevel(level: string): Promise<Active> {
      await ready();
      const available = publisher.state().availableThinkingLevels;
      if (!available.includes(level) || !(THINKING_LEVELS as readonly string[]).includes(level)) {
        throw new RuntimeHostError("invalid_request", `Thinking level ${level} is not available (available: ${available.join(", ")})`);
      }
      publisher.applySnapshot(await supervision.call("setThinkingLevel", { level: level as ThinkingLevelName }));
      return publisher.active();
    },

    /** Reloads pi's resources at the current leaf; unsent tasks stay, held. */
    async reload(): Promise<Active> {
      await ready();
      dispatcher.requireIdle("reload");
      dispatcher.requireNoTaskInFlight("reload");
      parts.forgetWorkerState();
      publisher.applySnapshot(await supervision.call("reload", {}, { timeoutMs: 120_000 }));
      return publisher.active();
    },

    /**
     * POST .../navigate `{ entryId, summarize?, customInstructions?, label? }` (pi's `/tree`): the leaf moves to the
     * entry (to a user message's parent, whose text comes back as `editorText` for the composer); nothing is
     * deleted. Unknown entry 404; a busy runtime 500 (as the other blocked actions). With `summarize`, pi writes a
     * branch summary of the path left behind (a model call). Without it nothing is written: the move lives in the
     * runtime until its next write (the snapshot's `leaf`; the read side shows that branch meanwhile). A fresh
     * snapshot is taken before answering, so the detail the route adds already shows the new branch.
     */
    async navigate(body: NavigateRequest): Promise<{ active: Active; editorText?: string; summaryEntryId?: string }> {
      await ready();
      dispatcher.requireIdle("navigate the session tree");
      dispatcher.requireNoTaskInFlight("navigate the session tree");
      let moved: RuntimeResultMap["navigateTree"] = { cancelled: true };
      await dispatcher.underSubmissionLock("tree navigation", async () => {
        moved = await entryCall(body.entryId, () =>
          supervision.call(
            "navigateTree",
            {
              targetId: body.entryId,
              ...(body.summarize !== undefined ? { summarize: body.summarize } : {}),
              ...(body.customInstructions !== undefined && body.customInstructions.trim() !== ""
                ? { customInstructions: body.customInstructions }
                : {}),
              ...(body.label !== undefined && body.label.trim() !== "" ? { label: body.label.trim() } : {}),
            },
            // A branch summary is a model call (as long as a compaction's); interrupt stops it.
            body.summarize === true ? { timeoutMs: 600_000 } : {},
          ),
        );
        publisher.applySnapshot(await supervision.call("snapshot", {}));
      });
      if (moved.cancelled)
        throw new RuntimeHostError(
          "runtime_failed",
          moved.aborted === true ? "The branch summary was stopped" : "The navigation was cancelled by an extension",
        );
      return {
        active: publisher.active(),
        ...(moved.editorText !== undefined ? { editorText: moved.editorText } : {}),
        ...(moved.summaryEntryId !== undefined ? { summaryEntryId: moved.summaryEntryId } : {}),
      };
    },

    /** POST .../label `{ entryId, label }`: pi's label entry (empty text clears); unknown entry 404. */
    async setLabel(entryId: string, label: string): Promise<Active> {
      await ready();
      publisher.applySnapshot(await entryCall(entryId, () => supervision.call("setLabel", { entryId, label: label.trim() })));
      return publisher.active();
    },

    /** PATCH /api/pi/sessions/:id `{ name }`: whitespace collapsed, empty rejected (400). */
    async rename(name: string): Promise<Active> {
      const normalized = normalizeSessionName(name);
      await ready();
      publisher.applySnapshot(await supervision.call("setSessionName", { name: normalized }));
      return publisher.active();
    },

    /** POST .../extension-confirmations/:requestId `{ confirmed }`. */
    async confirm(requestId: string, confirmed: boolean): Promise<void> {
      await ready();
      if (!confirmations.isPending(requestId)) throw new RuntimeHostError("conflict", "Confirmation is no longer pending");
      const { delivered } = await supervision.call("extensionUiReply", { requestId, confirmed });
      confirmations.resolved(requestId);
      if (!delivered) throw new RuntimeHostError("conflict", "Confirmation is no longer pending");
    },

    /**
     * Reset to here: the file ends at `entryId` afterwards; the original file is copied (byte for byte) to
     * `<agentDir>/leyline-trash` first (`trashPath`). The worker is disposed during the rewrite and a new one
     * reopens the file; the queue is held as on reload. See session-reset.ts.
     */
    async resetToEntry(entryId: string): Promise<{ trashPath: string; active: Active }> {
      await ready();
      dispatcher.requireIdle("reset");
      const file = publisher.identity().sessionFile;
      if (file === null || !fs.existsSync(file)) throw new RuntimeHostError("runtime_failed", "The session has no saved file yet");
      // Validates the entry (404 unknown, 400 off the active branch: the one the runtime shows, even when its leaf
      // moved without writing) before anything is stopped.
      const moved = publisher.movedLeaf();
      const leaf = moved === null ? undefined : moved.leafId;
      checkResetEntry(file, entryId, leaf);
      parts.forgetWorkerState();
      const { trashPath } = await supervision.restartAround({ sessionFile: file }, () =>
        resetSessionFile(file, entryId, { trashDir: parts.trashDir(), now: clock.now(), leaf }),
      );
      return { trashPath, active: publisher.active() };
    },

    /**
     * Runs one prompt (with its images, if any) to completion (subagent and vision children, adapters/subagents):
     * the worker replies after pi's whole run, without a timeout (`interrupt` or closing the runtime ends it).
     * Meanwhile the runtime counts as a prompt being set up, so it is busy for eviction, idle cleanup and queue
     * dispatch. Text must not be empty (400); a busy runtime answers 500; a failed run (preflight, worker exit)
     * throws 500.
     */
    async runToCompletion(text: string, images: readonly PromptImage[] = []): Promise<Active> {
      if (text.trim() === "") throw new RuntimeHostError("invalid_request", "text must be a non-empty string");
      await ready();
      dispatcher.requireIdle("run a task");
      await dispatcher.whileSettingUp(async () => {
        supervision.noteProgress();
        const withImages = images.length > 0 ? { images: images.map((image) => ({ ...image })) } : {};
        await supervision.call("prompt", { text, ...withImages, awaitCompletion: true }, { timeoutMs: 0 });
      });
      await refresh();
      return publisher.active();
    },
  };
}
