/**
 * The subagent marker: the one `custom` entry (customType `leyline-subagent`, SUBAGENT_CUSTOM_TYPE) a child
 * session run by POST /api/pi/subagent carries. The worker appends it before extensions bind; it links the
 * child to its parent (the session summary's `isSubagentSession`) and tells the bundled read-only-bash guard
 * (extensions/readonly-bash) whether this session may run only read-only bash commands.
 *
 * data: `{ version: 1, parentSessionId, parentSessionPath, toolCallId, agent, readOnlyBash }`; a field that
 * is not known is null.
 */
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
}

export const SUBAGENT_MARKER_FIELDS = ["version", "parentSessionId", "parentSessionPath", "toolCallId", "agent", "readOnlyBash"] as const;

function nullableString(value: unknown): value is string | null {
  return value === null || typeof value === "string";
}

/** Why `value` is not marker data, or null when it is (exact shape: no unknown fields). */
export function checkSubagentMarkerData(value: unknown, path = "marker"): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path} must be an object`;
  const record = value as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => !(SUBAGENT_MARKER_FIELDS as readonly string[]).includes(key));
  if (extra.length > 0) return `${path} has unknown field(s): ${extra.join(", ")}`;
  if (record["version"] !== SUBAGENT_MARKER_VERSION) return `${path}.version must be ${SUBAGENT_MARKER_VERSION}`;
  for (const key of ["parentSessionId", "parentSessionPath", "toolCallId", "agent"] as const) {
    if (!nullableString(record[key])) return `${path}.${key} must be a string or null`;
  }
  if (typeof record["readOnlyBash"] !== "boolean") return `${path}.readOnlyBash must be a boolean`;
  return null;
}

export function isSubagentMarkerData(value: unknown): value is SubagentMarkerData {
  return checkSubagentMarkerData(value) === null;
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
