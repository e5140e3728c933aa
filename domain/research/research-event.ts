/**
 * Decoding and encoding of `leyline-research` custom entries.
 *
 * `parseResearchEvent` accepts `{ type: "custom", customType: "leyline-research", data }` whose `data` has
 * `version: 1`, a non-empty string `sessionId` and a known `kind` with its required fields; anything
 * else is null (never a throw). Optional fields of the wrong type are dropped rather than failing the
 * event, so files written by older or newer Leyline versions keep folding. Text is not trimmed here:
 * the fold bounds it.
 *
 * Required per kind: `objective` (string) for objective; `phase` (a known phase) for phase; a
 * non-empty string `thread.id` for thread; a `source` object with an http(s) `url` or non-empty `path`
 * for source; a non-empty `reportEntryId` for report. A plan without a `threads` array plans no thread;
 * an error without a string `message` has message "". `updatedAt` is a number (ms) or an ISO string.
 */
import type { SessionEntry } from "../session-log.ts";
import { isRecord } from "./research-normalize.ts";
import { sourceKey } from "./source-ledger.ts";
import {
  RESEARCH_CUSTOM_TYPE,
  RESEARCH_EVENT_VERSION,
  RESEARCH_PHASES,
  RESEARCH_SOURCE_STATUSES,
  RESEARCH_THREAD_STATUSES,
  type ResearchChildSession,
  type ResearchEvent,
  type ResearchEventData,
  type ResearchPlanThread,
  type ResearchSourceInput,
  type ResearchThreadUpdate,
} from "./research-types.ts";

/** True for a custom entry of research's custom type (whatever its data). */
export function isResearchEntry(entry: SessionEntry): boolean {
  return entry.type === "custom" && entry.customType === RESEARCH_CUSTOM_TYPE;
}

/** The research event an entry carries, or null when it is not a valid research event. */
export function parseResearchEvent(entry: SessionEntry): ResearchEvent | null {
  try {
    if (entry.type !== "custom" || entry.customType !== RESEARCH_CUSTOM_TYPE) return null;
    return parseResearchEventData(entry.data);
  } catch {
    // Defensive: exotic inputs (getters, proxies) must not escape as a throw.
    return null;
  }
}

/** Decodes the `data` object of a research entry; null when invalid. */
export function parseResearchEventData(data: unknown): ResearchEvent | null {
  if (!isRecord(data)) return null;
  if (data["version"] !== RESEARCH_EVENT_VERSION) return null;
  const sessionId = data["sessionId"];
  if (typeof sessionId !== "string" || sessionId === "") return null;
  const base: { sessionId: string; updatedAt?: number } = { sessionId };
  const updatedAt = parseTime(data["updatedAt"]);
  if (updatedAt !== undefined) base.updatedAt = updatedAt;

  switch (data["kind"]) {
    case "session": {
      const objective = optionalString(data["objective"]);
      return { kind: "session", ...base, ...(objective !== undefined ? { objective } : {}) };
    }
    case "objective": {
      const objective = data["objective"];
      if (typeof objective !== "string") return null;
      return { kind: "objective", ...base, objective };
    }
    case "plan": {
      const threads = Array.isArray(data["threads"]) ? data["threads"].flatMap(planThread) : [];
      return { kind: "plan", ...base, strategy: optionalString(data["strategy"]) ?? "", threads };
    }
    case "phase": {
      const phase = RESEARCH_PHASES.find((p) => p === data["phase"]);
      if (!phase) return null;
      const note = optionalString(data["note"]);
      const title = optionalString(data["title"]);
      const citedSourceIds = optionalNumbers(data["citedSourceIds"]);
      return {
        kind: "phase",
        ...base,
        phase,
        ...(data["status"] === "error" ? { status: "error" as const } : {}),
        ...(note !== undefined ? { note } : {}),
        ...(title !== undefined ? { title } : {}),
        ...(citedSourceIds !== undefined ? { citedSourceIds } : {}),
      };
    }
    case "thread": {
      const thread = threadUpdate(data["thread"]);
      return thread ? { kind: "thread", ...base, thread } : null;
    }
    case "source": {
      const source = sourceInput(data["source"]);
      return source ? { kind: "source", ...base, source } : null;
    }
    case "report": {
      const reportEntryId = data["reportEntryId"];
      if (typeof reportEntryId !== "string" || reportEntryId === "") return null;
      const title = optionalString(data["title"]);
      const citedSourceIds = optionalNumbers(data["citedSourceIds"]);
      return {
        kind: "report",
        ...base,
        reportEntryId,
        ...(title !== undefined ? { title } : {}),
        ...(citedSourceIds !== undefined ? { citedSourceIds } : {}),
      };
    }
    case "error":
      return { kind: "error", ...base, message: optionalString(data["message"]) ?? "" };
    default:
      return null;
  }
}

/** The `data` object to write for an event (`pi.appendEntry(RESEARCH_CUSTOM_TYPE, data)`); plain JSON. */
export function researchEventEntryData(event: ResearchEvent): ResearchEventData {
  // A structured clone through JSON drops undefined fields and shares nothing with the event.
  const copy = JSON.parse(JSON.stringify(event)) as ResearchEvent;
  return { version: RESEARCH_EVENT_VERSION, ...copy };
}

// ---------------------------------------------------------------------------------------------------------

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function optionalNumbers(value: unknown): number[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((item): item is number => typeof item === "number" && Number.isFinite(item));
}

function optionalTime(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function parseTime(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && value.trim() !== "") {
    const parsed = Date.parse(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

function planThread(value: unknown): ResearchPlanThread[] {
  if (!isRecord(value)) return [];
  return [
    {
      id: optionalString(value["id"]) ?? "",
      title: optionalString(value["title"]) ?? "",
      task: optionalString(value["task"]) ?? "",
    },
  ];
}

function childSession(value: unknown): ResearchChildSession | null | undefined {
  if (value === null) return null;
  if (!isRecord(value)) return undefined;
  return {
    id: optionalString(value["id"]) ?? "",
    path: optionalString(value["path"]) ?? "",
    cwd: optionalString(value["cwd"]) ?? "",
  };
}

function threadUpdate(value: unknown): ResearchThreadUpdate | null {
  if (!isRecord(value)) return null;
  const id = value["id"];
  if (typeof id !== "string" || id.trim() === "") return null;
  const update: ResearchThreadUpdate = { id };
  const title = optionalString(value["title"]);
  if (title !== undefined) update.title = title;
  const task = optionalString(value["task"]);
  if (task !== undefined) update.task = task;
  const status = RESEARCH_THREAD_STATUSES.find((s) => s === value["status"]);
  if (status) update.status = status;
  const summary = optionalString(value["summary"]);
  if (summary !== undefined) update.summary = summary;
  const sourceIds = optionalNumbers(value["sourceIds"]);
  if (sourceIds !== undefined) update.sourceIds = sourceIds;
  const child = childSession(value["childSession"]);
  if (child !== undefined) update.childSession = child;
  const error = optionalString(value["error"]);
  if (error !== undefined) update.error = error;
  const startedAt = optionalTime(value["startedAt"]);
  if (startedAt !== undefined) update.startedAt = startedAt;
  const completedAt = optionalTime(value["completedAt"]);
  if (completedAt !== undefined) update.completedAt = completedAt;
  return update;
}

function sourceInput(value: unknown): ResearchSourceInput | null {
  if (!isRecord(value)) return null;
  if (sourceKey(value) === null) return null;
  const input: ResearchSourceInput = {};
  const id = value["id"];
  if (typeof id === "number" && Number.isFinite(id)) input.id = id;
  for (const field of [
    "url",
    "path",
    "title",
    "publisher",
    "publishedAt",
    "kind",
    "threadId",
    "claim",
    "evidence",
    "exclusionReason",
  ] as const) {
    const text = optionalString(value[field]);
    if (text !== undefined) input[field] = text;
  }
  const status = RESEARCH_SOURCE_STATUSES.find((s) => s === value["status"]);
  if (status) input.status = status;
  if (Array.isArray(value["threadIds"])) {
    input.threadIds = value["threadIds"].filter((t): t is string => typeof t === "string");
  }
  return input;
}
