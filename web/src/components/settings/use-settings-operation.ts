/**
 * One private settings operation (spec "Settings operations"): started by a provider or MCP action, then
 * polled with GET /api/pi/settings/operations/:id about every 500 ms until it is completed, cancelled or error.
 * The current prompt is answered with POST, and DELETE cancels (the state goes to cancelling; polling goes on
 * until the operation ends). Polling stops when the owner's scope ends (the component unmounts) or `stop()`.
 *
 * When the owner goes away (the modal closes) while the operation still runs, it is cancelled: a sign-in left
 * waiting would hold the provider lock that conversation runtimes also need, for up to ten minutes.
 *
 * A 404 while polling means the operation expired; its message ("This settings operation expired. Start it
 * again.") is shown as `error`. Other failed polls are retried a few times before giving up.
 */
import { computed, getCurrentScope, onScopeDispose, reactive, ref, type UnwrapNestedRefs } from "vue";
import { ApiError, errorMessage } from "../../api/http.ts";
import { answerOperation, cancelOperation, getOperation, type OperationSnapshot } from "../../api/pi-settings.ts";

export const POLL_INTERVAL_MS = 500;
const MAX_POLL_FAILURES = 3;
export const OPERATION_EXPIRED = "This settings operation expired. Start it again.";

export type OperationState = OperationSnapshot["state"];

export function isTerminal(state: OperationState): boolean {
  return state === "completed" || state === "cancelled" || state === "error";
}

export interface OperationOptions {
  intervalMs?: number;
  /** Called once when the operation reaches a terminal state (completed, cancelled or error). */
  onSettled?: (operation: OperationSnapshot) => void;
}

export function useSettingsOperation(options: OperationOptions = {}) {
  const interval = options.intervalMs ?? POLL_INTERVAL_MS;
  const operation = ref<OperationSnapshot | null>(null);
  /** A request failed (starting, polling, answering or cancelling): the server's words. */
  const error = ref("");
  /** Starting, answering or cancelling is on its way. */
  const busy = ref(false);
  /** The prompt id last answered: its input stays disabled until the server moves on. */
  const answeredPromptId = ref<string | null>(null);

  let timer: ReturnType<typeof setTimeout> | null = null;
  let generation = 0;
  let failures = 0;
  let settled = false;

  const running = computed(() => operation.value !== null && !isTerminal(operation.value.state));

  function clearTimer(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  }

  function stop(): void {
    generation++;
    clearTimer();
  }

  function accept(snapshot: OperationSnapshot, token: number): void {
    if (token !== generation) return;
    operation.value = snapshot;
    if (snapshot.prompt?.id !== answeredPromptId.value) answeredPromptId.value = null;
    if (isTerminal(snapshot.state)) {
      clearTimer();
      if (!settled) {
        settled = true;
        options.onSettled?.(snapshot);
      }
      return;
    }
    schedule(token);
  }

  function schedule(token: number): void {
    clearTimer();
    timer = setTimeout(() => void poll(token), interval);
  }

  async function poll(token: number): Promise<void> {
    timer = null;
    const current = operation.value;
    if (token !== generation || current === null) return;
    try {
      const snapshot = await getOperation(current.id);
      failures = 0;
      accept(snapshot, token);
    } catch (caught) {
      if (token !== generation) return;
      if (caught instanceof ApiError && caught.status === 404) {
        error.value = caught.message || OPERATION_EXPIRED;
        stop();
        return;
      }
      failures++;
      error.value = errorMessage(caught);
      if (failures < MAX_POLL_FAILURES) schedule(token);
      else stop();
    }
  }

  /** Starts an operation (the action request) and polls it; a previous one of this slot stops being polled. */
  async function start(begin: () => Promise<OperationSnapshot>): Promise<boolean> {
    stop();
    const token = generation;
    operation.value = null;
    error.value = "";
    answeredPromptId.value = null;
    failures = 0;
    settled = false;
    busy.value = true;
    try {
      const snapshot = await begin();
      accept(snapshot, token);
      return true;
    } catch (caught) {
      if (token === generation) error.value = errorMessage(caught);
      return false;
    } finally {
      if (token === generation) busy.value = false;
    }
  }

  async function answer(value: string): Promise<void> {
    const current = operation.value;
    const prompt = current?.prompt;
    if (current === null || prompt === null || prompt === undefined) return;
    const token = generation;
    busy.value = true;
    error.value = "";
    answeredPromptId.value = prompt.id;
    try {
      const snapshot = await answerOperation(current.id, { promptId: prompt.id, value });
      accept(snapshot, token);
    } catch (caught) {
      if (token !== generation) return;
      answeredPromptId.value = null;
      error.value = errorMessage(caught);
    } finally {
      if (token === generation) busy.value = false;
    }
  }

  async function cancel(): Promise<void> {
    const current = operation.value;
    if (current === null || isTerminal(current.state)) return;
    const token = generation;
    busy.value = true;
    error.value = "";
    try {
      const snapshot = await cancelOperation(current.id);
      accept(snapshot, token);
    } catch (caught) {
      if (token !== generation) return;
      if (caught instanceof ApiError && caught.status === 404) stop();
      error.value = errorMessage(caught);
    } finally {
      if (token === generation) busy.value = false;
    }
  }

  /** Forgets the operation (after its result was read); a running one stops being polled, not cancelled. */
  function dismiss(): void {
    stop();
    operation.value = null;
    error.value = "";
    answeredPromptId.value = null;
    busy.value = false;
  }

  /** The owner went away: stop polling, and cancel what still runs (fire and forget). */
  function abandon(): void {
    const current = operation.value;
    stop();
    if (current !== null && current.state === "running") void cancelOperation(current.id).catch(() => undefined);
  }

  if (getCurrentScope()) onScopeDispose(abandon);

  return { operation, error, busy, running, answeredPromptId, start, answer, cancel, stop, dismiss };
}

export type SettingsOperationHandle = ReturnType<typeof useSettingsOperation>;

/** The handle with its refs unwrapped, for templates and OperationPanel's `handle` prop. */
export type OperationView = UnwrapNestedRefs<SettingsOperationHandle>;

export function useOperationView(options: OperationOptions = {}): OperationView {
  return reactive(useSettingsOperation(options));
}
