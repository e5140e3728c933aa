/**
 * Runtime action routes (spec "Runtime action routes" through "POST /api/pi/mode"): the scoped routes
 * POST /api/pi/sessions/:id/<action> (the runtime is opened when it is not open; unknown id → 404; only fork
 * changes the selection) and their legacy twins POST /api/pi/<action> on the selected runtime
 * (500 "No active session" when none). Action paths accept only POST; other methods → 404 "Not found".
 *
 * Bodies are validated by the runtime handle's parsers (runtime-action-bodies.ts, the queue request parser)
 * or here; their errors carry the spec's status (RuntimeHostError → the app's error handler).
 *
 * edit-prompt answers `{ ok, active }` once the replacement prompt passed pi's preflight (RuntimeHandle.editPrompt).
 *
 * Body limits: prompt, queue and edit-prompt (scoped and legacy) take pi's image sizes (body-limits.ts); the
 * other actions keep Fastify's 1 MiB. A larger body answers 413.
 *
 * reset-to-entry answers `{ ok, active, detail, trashed: { path } }`: the trash copy of the whole file, which
 * POST /api/pi/sessions/:id/reset-undo restores (session-reset.routes.ts).
 *
 * ultrafast (scoped only): RuntimeHandle.setUltrafast runs the bundled `/ultrafast on|off` command; the mode
 * is read from `active.state.extensionUi.statuses["leyline-ultrafast"]`.
 *
 * fork: the session-level subagent and vision overrides of the source session copy to the fork.
 *
 * mode: the workers keep pi's one-at-a-time steering and follow-up modes (pi's defaults, never changed), so
 * the route answers the current snapshot.
 */
import type { FastifyPluginAsync, FastifyRequest, FastifySchema } from "fastify";
import {
  answerConfirmation,
  legacyActionRoute,
  RUNTIME_ACTIONS,
  scopedActionRoute,
  type RuntimeActionBody,
  type RuntimeActionName,
} from "../domain/contract/http-runtime-actions.ts";
import { requireObjectBody, typed } from "./contract.ts";
import type { RuntimeHandle } from "../adapters/runtime-host/runtime-handle.ts";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { PROMPT_BODY_ACTIONS, PROMPT_BODY_LIMIT_BYTES } from "./body-limits.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { RouteMethodsConfig } from "./route-methods.ts";
import { detailOf, openSession } from "../adapters/session-resolution/session-resolution.ts";
import { canonicalPath } from "../adapters/subagents/subagent-context.ts";
import { copySessionOverrides } from "../adapters/subagents/subagent-overrides.ts";
import { copySessionVisionOverride } from "../adapters/vision/vision-overrides.ts";

export interface RuntimeActionsRoutesOptions {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
}

type ActionRequest = FastifyRequest<{ Params: Record<string, string>; Body: unknown }>;

type BodyOf<N extends RuntimeActionName> = RuntimeActionBody<N>;

/** One action: what it does on a resolved runtime with its checked body. */
type Action<N extends RuntimeActionName> = (handle: RuntimeHandle, body: BodyOf<N>) => Promise<object>;
type Actions<N extends RuntimeActionName> = { readonly [K in N]: Action<K> };

const ACTION_CONFIG: RouteMethodsConfig = { unsupportedMethod: 404 };

export { ULTRAFAST_UNAVAILABLE_MESSAGE as ULTRAFAST_UNAVAILABLE } from "../domain/runtime/ultrafast.ts";
export { ULTRAFAST_COMMAND_MISSING } from "../adapters/runtime-host/runtime-handle.ts";

export const runtimeActionsRoutes: FastifyPluginAsync<RuntimeActionsRoutesOptions> = async (app, options) => {
  const { readSide, host } = options;
  const services = { readSide, host };

  /** Spec "Fork": session-level subagent and vision overrides copy to the fork (a failure is logged, the fork stands). */
  const copyForkOverrides = async (source: string | null, fork: string | null): Promise<void> => {
    if (source === null || fork === null) return;
    try {
      const db = (await readSide.database()).db;
      const [from, to] = [canonicalPath(source), canonicalPath(fork)];
      await copySessionOverrides(db, from, to);
      await copySessionVisionOverride(db, from, to);
    } catch (error) {
      app.log.warn({ err: error }, "copying the session overrides to a fork failed");
    }
  };

  const withDetail = async (handle: RuntimeHandle, active: unknown): Promise<object> => ({
    ok: true,
    active,
    detail: await detailOf(readSide, handle),
  });

  /** Actions with a scoped route and a legacy twin. */
  const shared: Actions<"prompt" | "bash" | "compact" | "edit-prompt" | "interrupt" | "reload" | "model" | "thinking" | "fork" | "mode"> = {
    prompt: async (handle, body) => ({ ok: true, ...(await handle.prompt(body)) }),
    bash: async (handle, body) => withDetail(handle, (await handle.bash(body)).active),
    compact: async (handle, body) => withDetail(handle, (await handle.compact(body.customInstructions)).active),
    "edit-prompt": async (handle, body) => ({ ok: true, active: await handle.editPrompt(body.entryId, body.text, body.images) }),
    interrupt: async (handle) => ({ ok: true, active: await handle.interrupt() }),
    reload: async (handle) => ({ ok: true, active: await handle.reload() }),
    model: async (handle, body) => ({ ok: true, active: await handle.setModel(body) }),
    thinking: async (handle, body) => ({ ok: true, active: await handle.setThinkingLevel(body.level) }),
    fork: async (handle, body) => {
      // pi's /fork: from a user message, the fork ends before it and its text goes back to the composer.
      const { handle: forked, editorText } = await host.forkWithText(handle.sessionId, body.entryId, { position: "auto" });
      await copyForkOverrides(handle.sessionFile, forked.sessionFile);
      return { ...(await withDetail(forked, forked.active())), ...(editorText !== null ? { editorText } : {}) };
    },
    mode: async (handle) => ({ ok: true, active: handle.active() }),
  };

  /** Scoped-only actions. */
  const scopedOnly: Actions<"queue" | "ultrafast" | "navigate" | "label"> = {
    queue: async (handle, body) => ({ ok: true, active: await handle.queue(body) }),
    ultrafast: async (handle, body) => ({ ok: true, active: await handle.setUltrafast(body.enabled) }),
    navigate: async (handle, body) => {
      const { active, ...moved } = await handle.navigate(body);
      return { ...(await withDetail(handle, active)), ...moved };
    },
    label: async (handle, body) => ({ ok: true, active: await handle.setLabel(body.entryId, body.label) }),
  };

  /** Legacy-only actions. */
  const legacyOnly: Actions<"reset-to-entry"> = {
    "reset-to-entry": async (handle, body) => {
      // trashed: the copy of the whole file before the cut (POST /api/pi/sessions/:id/reset-undo restores it)
      const { active, trashPath } = await handle.resetToEntry(body.entryId);
      return { ...(await withDetail(handle, active)), trashed: { path: trashPath } };
    },
  };

  // The contract says which paths each action has; the handlers here must say the same.
  for (const [name, { routes }] of Object.entries(RUNTIME_ACTIONS)) {
    const here = name in shared ? "both" : name in scopedOnly ? "scoped" : name in legacyOnly ? "legacy" : "none";
    if (here !== routes) throw new Error(`Runtime action ${name}: the contract says ${routes}, the routes have ${here}`);
  }

  // The spec's order: a body that is not an object is 400, then the session is found (unknown id 404, no
  // selection 500), and only then are the body's fields checked (the schemas of
  // domain/contract/http-runtime-actions.ts; a missing body is `{}`). So the session is resolved in
  // preValidation, before Fastify runs the schema.
  const handles = new WeakMap<FastifyRequest, RuntimeHandle>();
  const resolveFirst = (resolve: (request: ActionRequest) => Promise<RuntimeHandle> | RuntimeHandle) => async (request: FastifyRequest) => {
    requireObjectBody(request.body);
    handles.set(request, await resolve(request as ActionRequest));
  };
  const handleOf = (request: FastifyRequest): RuntimeHandle => {
    const handle = handles.get(request);
    if (handle === undefined) throw new Error("runtime action without a resolved session");
    return handle;
  };
  const findScoped = resolveFirst((request) => openSession(services, request.params["id"] ?? ""));
  const findSelected = resolveFirst(() => host.active());
  // The one cast: this route's schema (RUNTIME_ACTIONS[name].body) checked the body as BodyOf<name>.
  const run = (action: Action<never>) => async (request: ActionRequest) => action(handleOf(request), request.body as never);

  // Bodies that may carry images get pi's image limits (body-limits.ts); the others keep Fastify's 1 MiB.
  const bodyLimitOf = (name: string): { bodyLimit?: number } =>
    PROMPT_BODY_ACTIONS.has(name) ? { bodyLimit: PROMPT_BODY_LIMIT_BYTES } : {};
  for (const [name, action] of Object.entries({ ...shared, ...scopedOnly })) {
    const contract = scopedActionRoute(name as RuntimeActionName);
    app.post<{ Params: Record<string, string>; Body: unknown }>(
      contract.url,
      { config: ACTION_CONFIG, schema: contract.schema as FastifySchema, preValidation: findScoped, ...bodyLimitOf(name) },
      run(action),
    );
  }
  for (const [name, action] of Object.entries({ ...shared, ...legacyOnly })) {
    const contract = legacyActionRoute(name as RuntimeActionName);
    app.post<{ Params: Record<string, string>; Body: unknown }>(
      contract.url,
      { config: ACTION_CONFIG, schema: contract.schema as FastifySchema, preValidation: findSelected, ...bodyLimitOf(name) },
      run(action),
    );
  }

  typed(app).post(
    answerConfirmation.url,
    { config: ACTION_CONFIG, schema: answerConfirmation.schema, preValidation: findScoped },
    async (request) => {
      await handleOf(request).confirm(request.params.requestId, request.body.confirmed);
      return { ok: true as const };
    },
  );
};
