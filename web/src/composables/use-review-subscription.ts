/**
 * Follows the Git review of a component's folder while the component lives: subscribes to it in review.store.ts
 * (one socket per folder, shared by every subscriber), moves the subscription when the folder changes, and lets it
 * go on unmount (the last subscriber to leave closes the socket).
 */
import { onBeforeUnmount, watch } from "vue";
import { useReviewStore } from "../stores/review.store.ts";

export function useReviewSubscription(cwd: () => string): void {
  const review = useReviewStore();
  let release: () => void = () => undefined;
  watch(
    cwd,
    (next) => {
      release();
      release = review.subscribe(next);
    },
    { immediate: true },
  );
  onBeforeUnmount(() => release());
}
