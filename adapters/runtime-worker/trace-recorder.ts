/**
 * The worker's trace capture (spec "Trace routes": every run is captured as it happens, whether or not a view is
 * open): each pi session event goes through the pure capture fold (domain/traces/trace-capture.ts) with its time,
 * pi's leaf entry and a fresh id, and the fold's writes travel to the server as one `trace` message. The server
 * decides what to store (capture on or off for new runs) and stores it; the worker always reports.
 *
 * A run still open when the worker lets its session go (dispose, a replaced session) is ended as aborted here, so
 * the stored trace does not stay `running`; the server also ends runs of runtimes that vanish (a crash).
 */
import { randomUUID } from "node:crypto";
import { abandonCapture, type CaptureState, EMPTY_CAPTURE, stepCapture } from "../../domain/traces/trace-capture.ts";
import type { CaptureWrite } from "../../domain/traces/trace-records.ts";

export interface TraceRecorderDeps {
  send(writes: CaptureWrite[]): void;
  /** pi's leaf entry id now. */
  leafId(): string | null;
  now?: () => number;
  newId?: () => string;
}

export interface TraceRecorder {
  push(event: { readonly type: string; readonly [key: string]: unknown }): void;
  /** Ends the open run (aborted, with `message`). */
  abandon(message: string): void;
}

export function createTraceRecorder(deps: TraceRecorderDeps): TraceRecorder {
  const now = deps.now ?? Date.now;
  const newId = deps.newId ?? randomUUID;
  let state: CaptureState = EMPTY_CAPTURE;
  const emit = (writes: CaptureWrite[]): void => {
    if (writes.length > 0) deps.send(writes);
  };
  return {
    push(event) {
      const step = stepCapture(state, { event, at: now(), leafId: deps.leafId(), newId: event.type === "agent_start" ? newId() : "" });
      state = step.state;
      emit(step.writes);
    },
    abandon(message) {
      const step = abandonCapture(state, { at: now(), leafId: deps.leafId() }, message);
      state = step.state;
      emit(step.writes);
    },
  };
}
