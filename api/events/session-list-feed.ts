/**
 * The session list as the events socket serves it (`session_list`, then `session_list_delta`): the index's
 * persisted sessions (its `sessions$` stream) plus open runtimes whose file the index does not list yet
 * (runtime-only rows, as GET /api/pi/sessions puts them first). One model for every socket: each delta is encoded
 * once (`head()`), whatever the number of subscribers; each new subscriber gets the current list as a snapshot.
 *
 * Runtime-only rows change with the runtime roster and with a runtime's file appearing; they are recomputed on
 * runtime_roster / runtime_removed / active_session events, and only when an open runtime's id or file changed
 * (not on every snapshot of a streaming runtime).
 */
import path from "node:path";
import { Observable, Subject, type Subscription } from "rxjs";
import {
  compareSessionRows,
  diffSessionLists,
  type SessionIndexStatus,
  type SessionListDelta,
  type SessionListSnapshot,
  type SessionRow,
} from "../../domain/live/session-list.ts";
import type { SessionSummary } from "../../domain/session-summary.ts";
import type { SessionListEvent } from "../../adapters/read-side/session-index.ts";
import type { ReadSide } from "../../adapters/read-side/read-side.ts";
import type { RuntimeHostView } from "../runtime-host.ts";
import { encodeMessageHead } from "./event-stream.ts";
import { runtimeOnlySessions } from "../../domain/session-list-merge.ts";

export type SessionListFeedEvent =
  | { readonly type: "snapshot"; readonly data: SessionListSnapshot }
  | { readonly type: "delta"; readonly data: SessionListDelta; head(): Buffer };

export interface SessionListFeed {
  /** The current list as a snapshot, then every delta (starts once the index is ready). */
  readonly events$: Observable<SessionListFeedEvent>;
  /** The current list (null until the index is ready). */
  current(): SessionListSnapshot | null;
  close(): void;
}

/** Events of the runtime host after which runtime-only rows may have changed. */
const ROSTER_EVENTS = new Set(["runtime_roster", "runtime_removed", "active_session"]);

export function createSessionListFeed(
  readSide: ReadSide,
  runtimeHost: RuntimeHostView,
  onError: (error: unknown) => void = () => undefined,
): SessionListFeed {
  const persisted = new Map<string, SessionSummary>();
  let runtimeRows: SessionRow[] = [];
  let runtimeSignature = "";
  let status: SessionIndexStatus | null = null;
  let revision = 0;
  let closed = false;
  const deltas = new Subject<SessionListFeedEvent>();
  const subscriptions: Subscription[] = [];
  let markListed: () => void = () => undefined;
  /** Resolves with the index's first snapshot. */
  const listed = new Promise<void>((resolve) => (markListed = resolve));

  const rows = (): SessionRow[] => [...runtimeRows, ...[...persisted.values()].sort(compareSessionRows)];

  /** The runtime-only rows now: open runtimes whose file (or id) the index does not list. */
  function computeRuntimeRows(): SessionRow[] {
    return runtimeOnlySessions(persisted.values(), runtimeHost.openRuntimes(), path.resolve).map((summary) => ({
      ...summary,
      runtimeOnly: true,
    }));
  }

  function signatureNow(): string {
    return runtimeHost
      .openRuntimes()
      .map((runtime) => `${runtime.sessionId}\u0000${runtime.sessionFile ?? ""}`)
      .join("\u0001");
  }

  function publish(upserted: SessionRow[], removed: string[]): void {
    if (status === null || closed) return;
    const data: SessionListDelta = { revision: ++revision, upserted, removed, status };
    let head: Buffer | null = null;
    deltas.next({ type: "delta", data, head: () => (head ??= encodeMessageHead("session_list_delta", data)) });
  }

  /** Recomputes the runtime-only rows; returns their changes as a delta part. */
  function refreshRuntimeRows(): { upserted: SessionRow[]; removed: string[] } {
    const before = runtimeRows;
    runtimeRows = computeRuntimeRows();
    runtimeSignature = signatureNow();
    return diffSessionLists(before, runtimeRows) ?? { upserted: [], removed: [] };
  }

  function onIndexEvent(event: SessionListEvent<SessionSummary>): void {
    status = event.status;
    if (event.type === "snapshot") {
      persisted.clear();
      for (const summary of event.sessions) persisted.set(summary.path, summary);
      refreshRuntimeRows();
      revision++;
      markListed();
      return;
    }
    const upserted: SessionRow[] = [];
    const removed: string[] = [];
    for (const file of event.removed) {
      if (persisted.delete(file)) removed.push(file);
    }
    for (const summary of event.upserted) {
      persisted.set(summary.path, summary);
      upserted.push(summary);
    }
    const runtime = refreshRuntimeRows();
    publish([...runtime.upserted, ...upserted], [...runtime.removed, ...removed]);
  }

  void readSide.ready().then(
    ({ index }) => {
      if (closed) return;
      subscriptions.push(
        index.sessions$.subscribe({
          next: (event) => {
            try {
              onIndexEvent(event);
            } catch (error) {
              onError(error);
            }
          },
          error: onError,
        }),
      );
    },
    () => undefined,
  );

  subscriptions.push(
    runtimeHost.events$.subscribe((event) => {
      if (status === null || !ROSTER_EVENTS.has(event.type)) return;
      if (event.type === "active_session" && signatureNow() === runtimeSignature) return;
      try {
        const change = refreshRuntimeRows();
        if (change.upserted.length > 0 || change.removed.length > 0) publish(change.upserted, change.removed);
      } catch (error) {
        onError(error);
      }
    }),
  );

  const current = (): SessionListSnapshot | null => (status === null ? null : { revision, sessions: rows(), status });

  const events$ = new Observable<SessionListFeedEvent>((subscriber) => {
    let inner: Subscription | null = null;
    let active = true;
    const begin = (): void => {
      const snapshot = current();
      if (!active || snapshot === null) return;
      subscriber.next({ type: "snapshot", data: snapshot });
      inner = deltas.subscribe(subscriber);
    };
    if (status !== null) begin();
    else void listed.then(begin);
    return () => {
      active = false;
      inner?.unsubscribe();
    };
  });

  return {
    events$,
    current,
    close() {
      closed = true;
      for (const subscription of subscriptions) subscription.unsubscribe();
      deltas.complete();
    },
  };
}
