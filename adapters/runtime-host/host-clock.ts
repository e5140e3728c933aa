/**
 * The runtime host's clock and timers, injectable so that idle cleanup, the watchdog and confirmation expiry
 * can be tested without waiting: `systemClock` in production, `ManualClock` in tests (time moves only when
 * `advance` is called, and due timers fire in time order).
 */
export interface HostTimer {
  cancel(): void;
}

export interface HostClock {
  /** ms since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms`; timers never keep the process alive. */
  schedule(ms: number, fn: () => void): HostTimer;
}

export const systemClock: HostClock = {
  now: () => Date.now(),
  schedule(ms, fn) {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

interface ManualTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock for tests: `advance(ms)` moves time and fires every timer that falls due, in order. */
export class ManualClock implements HostClock {
  private time: number;
  private seq = 0;
  private timers: ManualTimer[] = [];

  constructor(start = 1_700_000_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  schedule(ms: number, fn: () => void): HostTimer {
    const timer: ManualTimer = { at: this.time + Math.max(0, ms), seq: ++this.seq, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Timers still waiting. */
  pending(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }

  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      this.timers = this.timers.filter((timer) => !timer.cancelled);
      const due = this.timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      due.cancelled = true;
      this.time = Math.max(this.time, due.at);
      due.fn();
    }
    this.time = target;
  }
}
