/**
 * Leyline's bundled Ultrafast extension (spec "Set Ultrafast", "Model.supportsUltrafast").
 *
 * `/ultrafast on|off` switches the mode of this runtime. The mode starts off on every session start (startup,
 * reload, new, resume, fork: pi builds a fresh extension instance per runtime load) and falls back to off on
 * every model change (`model_select`). The mode is published as the extension status `leyline-ultrafast`
 * ("on" / "off"). Enabling is refused for a model without Ultrafast support (the command throws; pi reports
 * it as an extension error and the mode stays off).
 *
 * While on, `before_provider_request` adds `service_tier: "priority"` to the provider payload. pi emits that
 * event only for the agent's own turns (the `onPayload` hook of the agent's stream options, sdk.js);
 * compaction and branch summaries call `completeSimple` without it, so they keep the default tier.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
  parseUltrafastArgs,
  supportsUltrafast,
  ULTRAFAST_COMMAND,
  ULTRAFAST_STATUS_KEY,
  ULTRAFAST_UNAVAILABLE_MESSAGE,
  modelAuthKind,
  type ModelAuthKind,
} from "../../domain/runtime/ultrafast.ts";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function authKind(ctx: ExtensionContext): ModelAuthKind {
  return ctx.model ? modelAuthKind(ctx.modelRegistry, ctx.model) : "unknown";
}

/** Whether the runtime's current model offers Ultrafast. */
export function modelSupportsUltrafast(ctx: ExtensionContext): boolean {
  const model = ctx.model;
  if (!model) return false;
  return supportsUltrafast({ provider: model.provider, api: model.api, modelId: model.id, authKind: authKind(ctx) });
}

export default function ultrafastExtension(pi: ExtensionAPI): void {
  let enabled = false;

  const publish = (ctx: ExtensionContext): void => {
    ctx.ui.setStatus(ULTRAFAST_STATUS_KEY, enabled ? "on" : "off");
  };

  pi.on("session_start", (_event, ctx) => {
    enabled = false;
    publish(ctx);
  });

  pi.on("model_select", (_event, ctx) => {
    enabled = false;
    publish(ctx);
  });

  pi.on("before_provider_request", (event, ctx) => {
    if (!enabled || !isRecord(event.payload) || !modelSupportsUltrafast(ctx)) return undefined;
    return { ...event.payload, service_tier: "priority" };
  });

  pi.registerCommand(ULTRAFAST_COMMAND, {
    description: "Ultrafast mode (priority service tier): /ultrafast on|off",
    getArgumentCompletions: (prefix) => {
      const items = ["on", "off"].filter((value) => value.startsWith(prefix.trim())).map((value) => ({ value, label: value }));
      return items.length > 0 ? items : null;
    },
    handler: async (args, ctx) => {
      const wanted = parseUltrafastArgs(args);
      if (wanted === null) throw new Error(`Usage: /${ULTRAFAST_COMMAND} on|off`);
      if (wanted && !modelSupportsUltrafast(ctx)) {
        ctx.ui.notify(ULTRAFAST_UNAVAILABLE_MESSAGE, "error");
        throw new Error(ULTRAFAST_UNAVAILABLE_MESSAGE);
      }
      enabled = wanted;
      publish(ctx);
    },
  });
}
