import { defineStore } from "pinia";
import { computed, ref } from "vue";

export interface ConfirmRequest {
  title: string;
  message: string;
  confirmLabel?: string;
  cancelLabel?: string;
  /** Destructive action: the confirm button is red and focus starts on Cancel. */
  danger?: boolean;
}

interface PendingConfirm extends ConfirmRequest {
  id: number;
  resolve(confirmed: boolean): void;
}

/**
 * App-wide confirmation dialogs (delete, reset to here, ...): `await confirm({ title, message })` resolves
 * true for OK, false for Cancel/Escape. One dialog shows at a time; later requests wait their turn. The
 * DialogHost component renders the current one (data-test confirm-ok / confirm-cancel).
 */
export const useDialogsStore = defineStore("dialogs", () => {
  const queue = ref<PendingConfirm[]>([]);
  let nextId = 1;

  const current = computed<(ConfirmRequest & { id: number }) | null>(() => {
    const first = queue.value[0];
    if (first === undefined) return null;
    const { resolve: _resolve, ...request } = first;
    return request;
  });

  function confirm(request: ConfirmRequest): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      queue.value = [...queue.value, { ...request, id: nextId++, resolve }];
    });
  }

  function answer(confirmed: boolean): void {
    const [first, ...rest] = queue.value;
    if (first === undefined) return;
    queue.value = rest;
    first.resolve(confirmed);
  }

  return { current, confirm, answer };
});
