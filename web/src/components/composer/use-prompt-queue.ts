/**
 * The composer's Up next queue: mutations (edit, remove, move, hold, resume…) run one after another, each with
 * the revision of the newest snapshot at the time it runs; a 409 (stale revision) refetches the snapshot and says
 * so beside the queue. Also what pi has accepted already (its steering and follow-up messages).
 */
import { computed, ref, type ComputedRef, type Ref } from "vue";
import type { Active, ActiveState, PromptQueue } from "../../../../domain/runtime/runtime-types.ts";
import { ApiError } from "../../api/http.ts";
import { mutateQueue, refreshActive, type QueueMutation } from "../../api/runtime-actions.ts";

export interface PromptQueueHost {
  sessionId: () => string;
  state: ComputedRef<ActiveState | null>;
  ready: ComputedRef<boolean>;
  error: Ref<string>;
  adopt: (active: Active) => void;
  fail: (problem: unknown) => void;
}

export function usePromptQueue(host: PromptQueueHost) {
  const queue = computed<PromptQueue | undefined>(() => host.state.value?.promptQueue);
  const busy = ref(false);
  const notice = ref("");
  let chain: Promise<void> = Promise.resolve();

  /** Runs after the mutations before it, with the revision of the newest snapshot at that time. */
  function mutate(mutation: QueueMutation): Promise<void> {
    chain = chain.then(() => run(mutation));
    return chain;
  }

  async function run(mutation: QueueMutation): Promise<void> {
    const revision = queue.value?.revision;
    if (revision === undefined || !host.ready.value) return;
    const sessionId = host.sessionId();
    busy.value = true;
    notice.value = "";
    host.error.value = "";
    try {
      host.adopt((await mutateQueue(sessionId, mutation, revision)).active);
    } catch (problem) {
      if (problem instanceof ApiError && problem.status === 409) {
        notice.value = `${problem.message.replace(/\.$/, "")}: the queue changed meanwhile. This is its latest state; try again.`;
        try {
          host.adopt((await refreshActive(sessionId)).active);
        } catch (refetchProblem) {
          host.fail(refetchProblem);
        }
      } else {
        host.fail(problem);
      }
    } finally {
      busy.value = false;
    }
  }

  const shown = computed(() => queue.value !== undefined && (queue.value.items.length > 0 || queue.value.held || queue.value.error !== ""));
  const accepted = computed(() => {
    const queued = host.state.value?.queuedMessages;
    return queued === undefined
      ? []
      : [...queued.steering.map((t) => ({ kind: "steer", text: t })), ...queued.followUp.map((t) => ({ kind: "follow-up", text: t }))];
  });

  return { queue, busy, notice, mutate, shown, accepted };
}
