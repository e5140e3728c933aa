/**
 * The export of an open runtime whose file does not exist yet (GET /api/pi/sessions/:id/export): its list row
 * and the research state of its `Active` snapshot, no transcript. Pure.
 */
import type { ResearchState } from "../../domain/research/research-types.ts";
import type { SessionSummary } from "../../domain/session-summary.ts";
import type { SessionExportInput } from "./session-export.ts";

/** What an export is made of before it is stamped (`exportedAt`, `generator`). */
export type SessionExportSource = Omit<SessionExportInput, "exportedAt" | "generator">;

/** What the export needs of an open runtime (api/runtime-host.ts's OpenRuntime has it). */
export interface ExportableRuntime {
  /** The session file, or null while the runtime has not written one. */
  readonly sessionFile: string | null;
  summary(): SessionSummary;
  /** The spec's `Active` snapshot (full). */
  snapshot(full: boolean): unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The research state of an open runtime's snapshot (`Active.state.research`), or null. */
export function runtimeResearch(runtime: Pick<ExportableRuntime, "snapshot">): ResearchState | null {
  const snapshot: unknown = runtime.snapshot(true);
  const state = isRecord(snapshot) ? snapshot["state"] : undefined;
  const research = isRecord(state) ? state["research"] : undefined;
  return isRecord(research) && typeof research["sessionId"] === "string" ? (research as unknown as ResearchState) : null;
}

/** The export of an open runtime whose file does not exist yet: its list row and research state. */
export function unsavedExport(runtime: ExportableRuntime): SessionExportSource {
  const summary = runtime.summary();
  return {
    session: {
      id: summary.id,
      ...(summary.name !== undefined ? { name: summary.name } : {}),
      cwd: summary.cwd,
      sessionFile: runtime.sessionFile ?? "",
      firstMessage: summary.firstMessage,
      messageCount: summary.messageCount,
      created: summary.timestamp ?? "",
      modified: summary.modified ?? "",
    },
    research: runtimeResearch(runtime),
    entries: [],
  };
}
