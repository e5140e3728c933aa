/**
 * The worker side of `LEYLINE_FAUX_RESPONSES`: registers pi-ai's faux provider as provider `faux` (models
 * `faux-1`, reasoning + images, the default; and `faux-2`, no reasoning) in a ModelRegistry, with a response
 * FACTORY that asks the control plane for the next scripted turn (`askTurn`). One script serves every runtime;
 * a request without a scripted turn gets an assistant error "No scripted reply".
 *
 * The api registration is process-global (pi-ai's api registry), so in-process workers share one faux
 * provider; its factory asks whichever live worker registered last (all reach the same script).
 *
 * pi's `AgentSession.reload()` resets pi-ai's api registry without refreshing the ModelRegistry, so the faux
 * models stay listed but lose their stream ("No API provider registered"): the worker calls
 * `reapplyScriptedFaux` after every reload.
 */
import type { AssistantMessage, Context, FauxProviderRegistration, Model } from "@earendil-works/pi-ai";
import type { ModelRegistry } from "@earendil-works/pi-coding-agent";
import type { FauxTurn } from "./faux-script.ts";

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
  registration: FauxProviderRegistration;
  askers: AskTurn[];
  calls: number;
}
let shared: SharedFaux | null = null;
/** The provider config each registry got, to register it again after a reload. */
const registeredConfigs = new WeakMap<ModelRegistry, Parameters<ModelRegistry["registerProvider"]>[1]>();

/** The text of the latest user message in a provider request ("" when there is none). */
export function latestUserText(context: Context): string {
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
  calls.forEach((call, index) => blocks.push(ai.fauxToolCall(call.name, call.arguments, { id: `faux_${callNumber}_${index}` })));
  return ai.fauxAssistantMessage(blocks, { stopReason: calls.length > 0 ? "toolUse" : "stop" });
}

/**
 * Registers the scripted faux provider in `modelRegistry` (and pi-ai's api registry). Returns a release
 * function; the shared registration is removed when its last worker releases it.
 */
export function registerScriptedFaux(
  ai: PiAi,
  modelRegistry: ModelRegistry,
  askTurn: AskTurn,
  options: { tokensPerSecond?: number; tokenSize?: number } = {},
): { model: Model<string>; release: () => void } {
  if (!shared) {
    const tokenSize = options.tokenSize ?? 3;
    const registration = ai.registerFauxProvider({
      api: FAUX_API,
      provider: FAUX_PROVIDER,
      models: FAUX_MODELS.map((model) => ({ ...model, contextWindow: 128_000, maxTokens: 16_384 })),
      tokenSize: { min: tokenSize, max: tokenSize },
      ...(options.tokensPerSecond !== undefined ? { tokensPerSecond: options.tokensPerSecond } : {}),
    });
    const state: SharedFaux = { registration, askers: [], calls: 0 };
    const step = async (context: Context): Promise<AssistantMessage> => {
      topUp();
      const callNumber = ++state.calls;
      const text = latestUserText(context);
      let turn: FauxTurn | null = null;
      // Relay through the newest worker; a null answer (no turn fits, or that worker is going away: its
      // control plane then takes no turn) asks the others, newest first. All reach one script, so a real
      // "no turn fits" stays null, and a turn is never taken for a worker that cannot deliver it.
      const asked = new Set<AskTurn>();
      for (let ask = state.askers.at(-1); ask !== undefined && turn === null; ask = [...state.askers].reverse().find((next) => !asked.has(next))) {
        asked.add(ask);
        turn = await ask(text);
      }
      return turnToMessage(ai, turn, callNumber);
    };
    // The faux provider consumes one queued step per request; keep the queue stocked with the factory.
    const topUp = (): void => {
      if (registration.getPendingResponseCount() < 16) registration.appendResponses(Array.from({ length: 64 }, () => step));
    };
    topUp();
    shared = state;
  }
  const current = shared;
  current.askers.push(askTurn);
  const provider = ai.getApiProvider(FAUX_API);
  if (!provider) throw new Error("faux api provider is not registered");
  // Through the ModelRegistry so that `refresh()` (which resets pi-ai's api registry) re-applies it.
  const config: Parameters<ModelRegistry["registerProvider"]>[1] = {
    api: FAUX_API,
    baseUrl: "http://localhost:0",
    apiKey: "leyline-faux",
    streamSimple: provider.streamSimple,
    models: FAUX_MODELS.map((model) => ({
      ...model,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: 128_000,
      maxTokens: 16_384,
    })),
  };
  modelRegistry.registerProvider(FAUX_PROVIDER, config);
  registeredConfigs.set(modelRegistry, config);
  const model = modelRegistry.find(FAUX_PROVIDER, FAUX_DEFAULT_MODEL_ID);
  if (!model) throw new Error("faux model was not registered");
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    const index = current.askers.indexOf(askTurn);
    if (index !== -1) current.askers.splice(index, 1);
    registeredConfigs.delete(modelRegistry);
    if (current.askers.length === 0 && shared === current) {
      current.registration.unregister();
      shared = null;
    }
  };
  return { model: model as Model<string>, release };
}

/**
 * Registers the faux provider again in a registry it was registered in (after pi's reload reset the api
 * registry); does nothing for other registries. Returns whether it did.
 */
export function reapplyScriptedFaux(modelRegistry: ModelRegistry): boolean {
  const config = registeredConfigs.get(modelRegistry);
  if (config === undefined) return false;
  modelRegistry.registerProvider(FAUX_PROVIDER, config);
  return true;
}
