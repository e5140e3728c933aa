/**
 * The notices of the pi sessions a worker hosts (`RuntimeNotice`: a model fallback, a file upgrade), kept by
 * session object: worker-runtime.ts records them when its factory creates a session (the first open, and every
 * replacement: fork, new, switch), and runtime-snapshot.ts reads the current session's into each snapshot. A
 * replaced session's notices go with it.
 */
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import type { RuntimeNotice } from "../../domain/runtime/runtime-types.ts";

const bySession = new WeakMap<AgentSession, RuntimeNotice[]>();

export function setSessionNotices(session: AgentSession, notices: RuntimeNotice[]): void {
  bySession.set(session, notices);
}

/**
 * The session's notices that still hold: a model fallback is dropped once the session runs another model
 * than the one pi fell back to (the person chose one).
 */
export function sessionNotices(session: AgentSession): RuntimeNotice[] {
  const model = session.model;
  return (bySession.get(session) ?? []).filter((notice) => {
    if (notice.kind !== "model-fallback") return true;
    if (notice.used === null) return model === undefined;
    return model !== undefined && model.provider === notice.used.provider && model.id === notice.used.id;
  });
}
