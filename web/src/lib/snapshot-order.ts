/**
 * Which runtime snapshot wins (spec: "Open-runtime snapshots carry snapshotRevision. Clients reject older
 * snapshots for the same session, whether they arrive through HTTP or WebSocket messages").
 *
 * A stored snapshot remembers the socket generation it was applied in. Each new events connection starts a
 * generation: the server then sends the current snapshot of every open runtime, and a runtime that was
 * closed and reopened while the client was away starts its revisions again, so the first snapshot of a
 * session in a new generation is always taken. Within a generation a snapshot applies only when its
 * revision is higher, or equal and full where the stored one is compact (the same state in more detail).
 * Snapshots without a revision (previews) cannot be ordered and are taken.
 */
import type { Active, ActiveSnapshot } from "../../../domain/runtime/runtime-types.ts";

export interface StoredSnapshot {
  snapshot: ActiveSnapshot;
  full: boolean;
  generation: number;
}

/** A full snapshot has confirmation records (compact ones drop them) and, when it has a queue, its items. */
export function isFullSnapshot(snapshot: ActiveSnapshot): snapshot is Active {
  const state = snapshot.state as { extensionUi?: { confirmations?: unknown }; promptQueue?: { items?: unknown } };
  if (!Array.isArray(state.extensionUi?.confirmations)) return false;
  return state.promptQueue === undefined || Array.isArray(state.promptQueue.items);
}

export function shouldApplySnapshot(current: StoredSnapshot | undefined, incoming: ActiveSnapshot, generation: number): boolean {
  if (current === undefined) return true;
  if (current.generation < generation) return true;
  const have = current.snapshot.snapshotRevision;
  const got = incoming.snapshotRevision;
  if (have === undefined || got === undefined) return true;
  if (got > have) return true;
  if (got === have) return isFullSnapshot(incoming) && !current.full;
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A runtime snapshot from an untyped message body, or null when it does not look like one. */
export function asActiveSnapshot(value: unknown): ActiveSnapshot | null {
  if (!isRecord(value)) return null;
  if (typeof value["id"] !== "string" || value["id"] === "") return null;
  if (!isRecord(value["state"])) return null;
  const revision = value["snapshotRevision"];
  if (revision !== undefined && typeof revision !== "number") return null;
  return value as unknown as ActiveSnapshot;
}
