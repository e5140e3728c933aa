/**
 * A small counting semaphore: at most `max` tasks run at once, the others wait in call order and start as
 * soon as a running one settles (fulfilled or rejected). Parallel subagent tasks run through one of these
 * (spec/deep-research.md: "Parallel execution runs up to four workers at one time").
 */

export interface ConcurrencyLimit {
  /** Runs `task` when a slot is free; settles as `task` does. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly waiting: number;
}

export function concurrencyLimit(max: number): ConcurrencyLimit {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency limit must be a positive integer (got ${max})`);
  let active = 0;
  const queue: Array<() => void> = [];

  const release = (): void => {
    active -= 1;
    const next = queue.shift();
    if (next) next();
  };

  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const start = (): void => {
          active += 1;
          let running: Promise<T>;
          try {
            running = task();
          } catch (error) {
            running = Promise.reject(error);
          }
          running.then(resolve, reject).finally(release);
        };
        if (active < max) start();
        else queue.push(start);
      });
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
