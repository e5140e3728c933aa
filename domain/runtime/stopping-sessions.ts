/**
 * The contract between Leyline's worker host and its bundled extensions for "this session is being shut
 * down": a process-wide Set of session ids under `Symbol.for(STOPPING_SESSIONS_KEY)` on globalThis. The worker
 * host adds a session's id before it disposes its runtime (adapters/runtime-worker/worker-host.ts); the subagent
 * extension reads it (extensions/subagent/index.ts).
 *
 * Why: pi 1.x's runtime dispose aborts the running turn before it emits `session_shutdown`, so a tool cut by
 * the shutdown cannot tell it from a person's interrupt by that event; a research thread cut by a stop must stay
 * running in the file (to be recovered), one the person interrupted fails.
 */
export const STOPPING_SESSIONS_KEY = "leyline.stoppingSessions";
