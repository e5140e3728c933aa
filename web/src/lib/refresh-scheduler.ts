/**
 * Refresh scheduler: "read this again" requests per key (the traces store's list, open run, expanded child runs,
 * watched sessions), coalesced behind a delay and run one at a time. Framework-free: the clock comes in as a
 * `TimerApi` (api/socket-lifecycle.ts `browserTimers` in the app, fake timers in tests); what a refresh reads and
 * whether it is still wanted is the caller's business.
 *
 * Rules kept:
 * - A request starts its key's timer; requests while that timer waits join it. The newest request's `refresh`
 *   is the one that runs (its delay counts from the next time the key is scheduled).
 * - One read per key at a time: a request while the key's read is on its way marks the key dirty, and when that
 *   read has settled (resolved or rejected) the key is scheduled once more, after its delay, however many
 *   requests came meanwhile. A read that settles with no request during it frees its key.
 * - A refresh that rejects is swallowed (reads keep their own errors): it counts as settled.
 * - `cancel(which)` clears the timers of the keys it picks and forgets them: a read on its way ends without
 *   running again, and a later request for the key starts afresh (it does not wait for the forgotten read).
 * - Keys are independent: one key's timer or read never holds back another's.
 */
import type { TimerApi } from "../api/socket-lifecycle.ts";

export interface RefreshScheduler {
  /** Runs `refresh` for `key` after `delay` ms, under the rules above. */
  schedule(key: string, refresh: () => Promise<void>, delay: number): void;
  /** Forgets the keys `which` picks: their timers are cleared and their reads on their way run no more. */
  cancel(which: (key: string) => boolean): void;
}

/** One key's refresh: its timer, whether its read is on its way, and whether a request came during it. */
interface RefreshSlot {
  timer: unknown;
  waiting: boolean;
  busy: boolean;
  dirty: boolean;
  refresh: () => Promise<void>;
  delay: number;
}

export function createRefreshScheduler(timers: TimerApi): RefreshScheduler {
  const slots = new Map<string, RefreshSlot>();

  function schedule(key: string, refresh: () => Promise<void>, delay: number): void {
    let slot = slots.get(key);
    if (slot === undefined) {
      slot = { timer: null, waiting: false, busy: false, dirty: false, refresh, delay };
      slots.set(key, slot);
    }
    slot.refresh = refresh;
    slot.delay = delay;
    if (slot.busy) slot.dirty = true;
    else if (!slot.waiting) startTimer(key, slot);
  }

  function startTimer(key: string, slot: RefreshSlot): void {
    slot.waiting = true;
    slot.timer = timers.setTimeout(() => void run(key, slot), slot.delay);
  }

  async function run(key: string, slot: RefreshSlot): Promise<void> {
    slot.waiting = false;
    slot.timer = null;
    slot.busy = true;
    try {
      await slot.refresh();
    } catch {
      // The reads keep their own errors; a refresh never throws past here.
    } finally {
      slot.busy = false;
      if (slots.get(key) === slot) settle(key, slot);
    }
  }

  /** The key's read has settled: once more if a request came during it, else the key is free. */
  function settle(key: string, slot: RefreshSlot): void {
    if (!slot.dirty) {
      slots.delete(key);
      return;
    }
    slot.dirty = false;
    startTimer(key, slot);
  }

  function cancel(which: (key: string) => boolean): void {
    for (const [key, slot] of [...slots]) {
      if (!which(key)) continue;
      if (slot.waiting) timers.clearTimeout(slot.timer);
      slots.delete(key);
    }
  }

  return { schedule, cancel };
}
