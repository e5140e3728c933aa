/**
 * The runtime action routes (spec "Runtime action routes" through "POST /api/pi/mode"): each action has a
 * scoped route `POST /api/pi/sessions/:id/<action>` (the runtime is opened when needed) and, for most, a
 * legacy twin `POST /api/pi/<action>` on the selected runtime. Both take the same body.
 */
import { Type, type Static, type TSchema } from "typebox";
import { PROMPT_QUEUE_ACTIONS, type QueueRequestBody } from "../prompt-queue/prompt-queue-request.ts";
import { Active, SessionDetail, Trashed } from "./http-common.ts";
import { defineRoute, type RouteContract, type RouteSchemas } from "./http-route.ts";
import { failsWith, literals, nonEmptyString, SessionIdParams, type SameType } from "./schema-kit.ts";

const tags = ["runtime actions"];

const ok = Type.Literal(true);
const OkActive = Type.Object({ ok, active: Active });
const OkActiveDetail = Type.Object({ ok, active: Active, detail: SessionDetail });

const PromptImage = failsWith(
  Type.Object({ type: Type.Literal("image"), data: Type.String(), mimeType: Type.String() }),
  'images[{index}] must be { type: "image", data: string, mimeType: string }',
);
const PromptImages = Type.Optional(failsWith(Type.Array(PromptImage), { type: "images must be an array" }));
const PromptText = failsWith(Type.String(), "text must be a string");

export const PromptBody = Type.Object({
  text: PromptText,
  images: PromptImages,
  streamingBehavior: Type.Optional(
    failsWith(Type.Union([Type.Literal("steer"), Type.Literal("followUp")]), "streamingBehavior must be steer or followUp"),
  ),
  kind: Type.Optional(failsWith(Type.Union([Type.Literal("session"), Type.Literal("research")]), "kind must be session or research")),
  handoffId: Type.Optional(failsWith(Type.String(), "handoffId must be a string")),
});

const EntryIdBody = Type.Object({ entryId: nonEmptyString("entryId must be a non-empty string") });

export const QueueBody = Type.Object({
  action: failsWith(literals(PROMPT_QUEUE_ACTIONS), `action must be one of ${PROMPT_QUEUE_ACTIONS.join(", ")}`),
  revision: failsWith(Type.Integer(), "Missing prompt queue revision", "conflict"),
  id: Type.Optional(failsWith(Type.String(), "id must be a non-empty string")),
  text: Type.Optional(failsWith(Type.String(), "text must be a string")),
  direction: Type.Optional(failsWith(Type.String(), "direction must be up or down")),
});
const _queue: SameType<Static<typeof QueueBody>, QueueRequestBody> = true;
void _queue;

interface ActionSchemas {
  readonly summary: string;
  readonly body?: RouteSchemas["body"];
  readonly response: RouteSchemas["response"];
}

/** The actions with their bodies and answers; `routes` says which of the two paths each has. */
export const RUNTIME_ACTIONS = {
  prompt: {
    routes: "both",
    summary: "Send a prompt (queued while the agent works, unless it steers or follows up)",
    body: PromptBody,
    response: { 200: Type.Object({ ok, queued: Type.Boolean(), active: Active }) },
  },
  bash: {
    routes: "both",
    summary: "Run a shell command in the session (its output joins the context unless excluded)",
    body: Type.Object({
      command: failsWith(Type.String(), "command must be a string"),
      excludeFromContext: Type.Optional(failsWith(Type.Boolean(), "excludeFromContext must be a boolean")),
    }),
    response: { 200: OkActiveDetail },
  },
  compact: {
    routes: "both",
    summary: "Compact the session's context",
    body: Type.Object({ customInstructions: Type.Optional(failsWith(Type.String(), "customInstructions must be a string")) }),
    response: { 200: OkActiveDetail },
  },
  "edit-prompt": {
    routes: "both",
    summary: "Replace a user message and run from there (on a new branch)",
    body: Type.Object({ entryId: nonEmptyString("entryId must be a non-empty string"), text: PromptText, images: PromptImages }),
    response: { 200: OkActive },
  },
  interrupt: { routes: "both", summary: "Stop the agent's current work", response: { 200: OkActive } },
  reload: { routes: "both", summary: "Recreate the runtime at the current leaf", response: { 200: OkActive } },
  model: {
    routes: "both",
    summary: "Change the session's model",
    body: Type.Object({
      provider: failsWith(Type.String({ pattern: "\\S" }), "provider must be a non-empty string"),
      id: failsWith(Type.String({ pattern: "\\S" }), "id must be a non-empty string"),
    }),
    response: { 200: OkActive },
  },
  thinking: {
    routes: "both",
    summary: "Change the thinking level",
    body: Type.Object({ level: failsWith(Type.String(), "level must be a string") }),
    response: { 200: OkActive },
  },
  fork: {
    routes: "both",
    summary: "Fork the session at an entry (selects the fork); from a user message, before it, and its text comes back for the composer",
    body: EntryIdBody,
    response: { 200: Type.Object({ ok, active: Active, detail: SessionDetail, editorText: Type.Optional(Type.String()) }) },
  },
  mode: { routes: "both", summary: "The steering and follow-up modes (pi's defaults; answers the snapshot)", response: { 200: OkActive } },
  queue: {
    routes: "scoped",
    summary: "Change the prompt queue (hold, resume, edit, remove, move, steer)",
    body: QueueBody,
    response: { 200: OkActive },
  },
  ultrafast: {
    routes: "scoped",
    summary: "Turn the bundled Ultrafast mode on or off",
    body: Type.Object({ enabled: failsWith(Type.Boolean(), "enabled must be a boolean") }),
    response: { 200: OkActive },
  },
  navigate: {
    routes: "scoped",
    summary: "Continue from another entry of the session tree (pi's /tree: the leaf moves, nothing is deleted)",
    body: Type.Object({
      entryId: nonEmptyString("entryId must be a non-empty string"),
      summarize: Type.Optional(failsWith(Type.Boolean(), "summarize must be a boolean")),
      customInstructions: Type.Optional(
        failsWith(Type.String({ maxLength: 4000 }), "customInstructions must be a string of at most 4000 characters"),
      ),
      label: Type.Optional(failsWith(Type.String({ maxLength: 200 }), "label must be a string of at most 200 characters")),
    }),
    response: {
      200: Type.Object({
        ok,
        active: Active,
        detail: SessionDetail,
        /** A user message's text, for the composer (pi puts it back in the editor). */
        editorText: Type.Optional(Type.String()),
        /** The branch summary written for the path left behind (summarize: true). */
        summaryEntryId: Type.Optional(Type.String()),
      }),
    },
  },
  label: {
    routes: "scoped",
    summary: "Set or clear (empty text) an entry's label",
    body: Type.Object({
      entryId: nonEmptyString("entryId must be a non-empty string"),
      label: failsWith(Type.String({ maxLength: 200 }), "label must be a string of at most 200 characters"),
    }),
    response: { 200: OkActive },
  },
  "reset-to-entry": {
    routes: "legacy",
    summary: "Cut the session back to an entry (a copy of the whole file goes to leyline-trash first)",
    body: EntryIdBody,
    response: { 200: Type.Object({ ok, active: Active, detail: SessionDetail, trashed: Trashed }) },
  },
} as const satisfies Record<string, ActionSchemas & { routes: "both" | "scoped" | "legacy" }>;

export type RuntimeActionName = keyof typeof RUNTIME_ACTIONS;

/** The body an action takes (`{}` for the actions without one). */
export type RuntimeActionBody<N extends RuntimeActionName> = (typeof RUNTIME_ACTIONS)[N] extends { body: infer B extends TSchema }
  ? Static<B>
  : Record<string, never>;
/** What an action answers. */
export type RuntimeActionResponse<N extends RuntimeActionName> = Static<(typeof RUNTIME_ACTIONS)[N]["response"][200]>;

type ActionOf<N extends RuntimeActionName> = (typeof RUNTIME_ACTIONS)[N];

/** POST /api/pi/sessions/:id/<name>. */
export function scopedActionRoute<N extends RuntimeActionName>(name: N) {
  const action: ActionOf<N> = RUNTIME_ACTIONS[name];
  return defineRoute("POST", `/api/pi/sessions/:id/${name}`, {
    summary: action.summary,
    tags,
    params: SessionIdParams,
    ...("body" in action ? { body: action.body } : {}),
    response: action.response,
  });
}

/** POST /api/pi/<name> on the selected runtime (500 "No active session" when none). */
export function legacyActionRoute<N extends RuntimeActionName>(name: N) {
  const action: ActionOf<N> = RUNTIME_ACTIONS[name];
  return defineRoute("POST", `/api/pi/${name}`, {
    summary: `${action.summary} (legacy: the selected session)`,
    tags,
    ...("body" in action ? { body: action.body } : {}),
    response: action.response,
  });
}

export const answerConfirmation = defineRoute("POST", "/api/pi/sessions/:id/extension-confirmations/:requestId", {
  summary: "Answer an extension's confirmation request",
  tags,
  params: Type.Object({
    id: nonEmptyString("id must be a non-empty string"),
    requestId: nonEmptyString("requestId must be a non-empty string"),
  }),
  body: Type.Object({ confirmed: failsWith(Type.Boolean(), "confirmed must be a boolean") }),
  response: { 200: Type.Object({ ok }) },
});

/** Every action route, scoped and legacy. */
export function runtimeActionRoutes(): RouteContract[] {
  const routes: RouteContract[] = [];
  for (const [name, action] of Object.entries(RUNTIME_ACTIONS) as [RuntimeActionName, ActionOf<RuntimeActionName>][]) {
    if (action.routes !== "legacy") routes.push(scopedActionRoute(name));
    if (action.routes !== "scoped") routes.push(legacyActionRoute(name));
  }
  return [...routes, answerConfirmation];
}
