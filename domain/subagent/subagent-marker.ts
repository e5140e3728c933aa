/**
 * The subagent marker: the one `custom` entry (customType `leyline-subagent`, SUBAGENT_CUSTOM_TYPE) a child
 * session run by POST /api/pi/subagent carries. The worker appends it before extensions bind; it links the
 * child to its parent (the session summary's `isSubagentSession`) and tells the bundled read-only-bash guard
 * (extensions/readonly-bash) whether this session may run only read-only bash commands.
 *
 * data: `{ version: 1, parentSessionId, parentSessionPath, toolCallId, agent, readOnlyBash }`; a field that
 * is not known is null.
 */
import type { Static } from "typebox";
import { contractChecker } from "../contract/contract-check.ts";
import type { SameType } from "../contract/schema-kit.ts";
import { SubagentMarkerData as SubagentMarkerDataSchema } from "../contract/subagent-marker-data.ts";
import type { SessionEntry } from "../session-log.ts";
import { SUBAGENT_CUSTOM_TYPE } from "../session-summary.ts";

export const SUBAGENT_MARKER_VERSION = 1;

export interface SubagentMarkerData {
  version: typeof SUBAGENT_MARKER_VERSION;
  parentSessionId: string | null;
  parentSessionPath: string | null;
  /** The parent's tool call that started this child (`_toolCallId` of the request). */
  toolCallId: string | null;
  /** The agent name the child runs as (for example `researcher`). */
  agent: string | null;
  /** Bash tool calls whose command is not read-only are blocked. */
  readOnlyBash: boolean;
  /** The parent's trace: its run that made `toolCallId` (deep-research: worker markers keep the trace anchor). */
  parentTraceId?: string | null;
}

const _marker: SameType<Static<typeof SubagentMarkerDataSchema>, SubagentMarkerData> = true;
void _marker;

const markerChecker = contractChecker(SubagentMarkerDataSchema, "marker", { style: "path" });

/** Why `value` is not marker data, or null when it is (exact shape: no unknown fields). */
export function checkSubagentMarkerData(value: unknown): string | null {
  return markerChecker.failure(value)?.message ?? null;
}

export function isSubagentMarkerData(value: unknown): value is SubagentMarkerData {
  return markerChecker.is(value);
}

/** The marker data of one entry, or null when the entry is not a (valid) subagent marker. */
export function subagentMarkerOfEntry(entry: SessionEntry): SubagentMarkerData | null {
  if (entry.type !== "custom" || entry.customType !== SUBAGENT_CUSTOM_TYPE) return null;
  return isSubagentMarkerData(entry.data) ? entry.data : null;
}

/** The first valid subagent marker among `entries` (a session's entries or branch), or null. */
export function subagentMarkerOf(entries: readonly SessionEntry[]): SubagentMarkerData | null {
  for (const entry of entries) {
    const marker = subagentMarkerOfEntry(entry);
    if (marker !== null) return marker;
  }
  return null;
}
