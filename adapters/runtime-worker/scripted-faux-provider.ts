/**
 * The worker side of `LEYLINE_FAUX_RESPONSES`: pi-ai's faux provider as provider `faux` (models `faux-1`,
 * reasoning + images, the default; and `faux-2`, no reasoning), registered as a native provider in a runtime's
 * ModelRuntime, with a response FACTORY that asks the control plane for the next scripted turn (`askTurn`). One
 * script serves every runtime; a request without a scripted turn gets an assistant error "No scripted reply".
 *
 * One faux provider per process, so in-process workers share it; its factory asks whichever live worker
 * registered last (all reach the same script). `reapplyScriptedFaux` registers it again in a runtime that lost
 * it (a reload that rebuilt the runtime's providers).
 */
import type { AssistantMessage, FauxProviderHandle, Message, Model } from "@earendil-works/pi-ai";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import type { FauxTurn } from "../runtime-protocol/faux-script.ts";

export const FAUX_PROVIDER = "faux";
export const FAUX_API = "faux";
export const FAUX_DEFAULT_MODEL_ID = "faux-1";
export const NO_SCRIPTED_REPLY = "No scripted reply";

type PiAi = typeof import("@earendil-works/pi-ai");
export type AskTurn = (latestUserText: string) => Promise<FauxTurn | null>;

const FAUX_MODELS = [
  { id: "faux-1", name: "Faux 1", reasoning: true, input: ["text", "image"] as ("text" | "image")[] },
  { id: "faux-2", name: "Faux 2", reasoning: false, input: ["text"] as ("text" | "image")[] },
];

interface SharedFaux {
  handle: FauxProviderHandle;
  askers: AskTurn[];
  calls: number;
}
let shared: SharedFaux | null = null;
/** The runtimes the faux provider is registered in, to register it again after a reload. */
const registeredRuntimes = new WeakSet<ModelRuntime>();

/** The text of the latest user message in a provider request ("" when there is none). */
export function latestUserText(context: { readonly messages: readonly Message[] }): string {
  for (let index = context.messages.length - 1; index >= 0; index--) {
    const message = context.messages[index];
    if (message?.role !== "user") continue;
    if (typeof message.content === "string") return message.content;
    return message.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  }
  return "";
}

function turnToMessage(ai: PiAi, turn: FauxTurn | null, callNumber: number): AssistantMessage {
  if (turn === null) return ai.fauxAssistantMessage([], { stopReason: "error", errorMessage: NO_SCRIPTED_REPLY });
  const blocks: Parameters<PiAi["fauxAssistantMessage"]>[0] = [];
  if (turn.thinking !== undefined) blocks.push(ai.fauxThinking(turn.thinking));
  if (turn.text !== undefined) blocks.push(ai.fauxText(turn.text));
  const calls = turn.toolCalls ?? [];
  calls.forEach((call, index) =>
    blocks.push(ai.fauxToolCall(call.name, call.arguments as Parameters<PiAi["fauxToolCall"]>[1], { id: `faux_${callNumber}_${index}` })),
  );
  return ai.fauxAssistantMessage(blocks, { stopReason: calls.length > 0 ? "toolUse" : "stop" });
}

/**
 * Registers the scripted faux provider in `modelRuntime` as a native provider. Returns the default model and a
 * release function; the shared provider is dropped when its last worker releases it.
 */
export async function registerScriptedFaux(
  ai: PiAi,
  modelRuntime: ModelRuntime,
  askTurn: AskTurn,
  options: { tokensPerSecond?: number; tokenSize?: number } = {},
): Promise<{ model: Model<string>; release: () => void }> {
  if (!shared) {
    const tokenSize = options.tokenSize ?? 3;
    const handle = ai.fauxProvider({
      api: FAUX_API,
      provider: FAUX_PROVIDER,
      models: FAUX_MODELS.map((model) => ({
        ...model,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: 128_000,
        maxTokens: 16_384,
      })),
      tokenSize: { min: tokenSize, max: tokenSize },
      ...(options.tokensPerSecond !== undefined ? { tokensPerSecond: options.tokensPerSecond } : {}),
    });
    const state: SharedFaux = { handle, askers: [], calls: 0 };
    const step = async (context: { readonly messages: readonly Message[] }): Promise<AssistantMessage> => {
      topUp();
      const callNumber = ++state.calls;
      const text = latestUserText(context);
      let turn: FauxTurn | null = null;
      // Relay through the newest worker; a null answer (no turn fits, or that worker is going away: its
      // control plane then takes no turn) asks the others, newest first. All reach one script, so a real
      // "no turn fits" stays null, and a turn is never taken for a worker that cannot deliver it.
      const asked = new Set<AskTurn>();
      for (
        let ask = state.askers.at(-1);
        ask !== undefined && turn === null;
        ask = [...state.askers].reverse().find((next) => !asked.has(next))
      ) {
        asked.add(ask);
        turn = await ask(text);
      }
      return turnToMessage(ai, turn, callNumber);
    };
    // The faux provider consumes one queued step per request; keep the queue stocked with the factory.
    const topUp = (): void => {
      if (handle.getPendingResponseCount() < 16) handle.appendResponses(Array.from({ length: 64 }, () => step));
    };
    topUp();
    shared = state;
  }
  const current = shared;
  current.askers.push(askTurn);
  await registerIn(modelRuntime, current.handle);
  const model = modelRuntime.getModel(FAUX_PROVIDER, FAUX_DEFAULT_MODEL_ID);
  if (!model) throw new Error("faux model was not registered");
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    const index = current.askers.indexOf(askTurn);
    if (index !== -1) current.askers.splice(index, 1);
    registeredRuntimes.delete(modelRuntime);
    if (current.askers.length === 0 && shared === current) shared = null;
  };
  return { model: model as Model<string>, release };
}

/** Registers the provider and waits for the runtime's availability pass, so that the faux models count as configured. */
async function registerIn(modelRuntime: ModelRuntime, handle: FauxProviderHandle): Promise<void> {
  modelRuntime.registerNativeProvider(handle.provider);
  registeredRuntimes.add(modelRuntime);
  await modelRuntime.refresh({ allowNetwork: false });
}

/**
 * Registers the faux provider again in a runtime it was registered in, when that runtime lost it (a reload that
 * rebuilt its providers); does nothing for other runtimes. Returns whether it registered it.
 */
export async function reapplyScriptedFaux(modelRuntime: ModelRuntime): Promise<boolean> {
  if (shared === null || !registeredRuntimes.has(modelRuntime)) return false;
  if (modelRuntime.getRegisteredNativeProvider(FAUX_PROVIDER) !== undefined) return false;
  await registerIn(modelRuntime, shared.handle);
  return true;
}
