/**
 * A coalesced reload: `reload()` runs `load` now, or, when a load is already running, once more after it
 * (however many calls came in meanwhile); every caller gets the promise of the run that covers its call.
 * `inFlight()` is the running reload, if any. `load` returns false to stop the extra run (nothing to load).
 */
export interface CoalescedReload {
  reload(): Promise<void>;
  inFlight(): Promise<void> | null;
}

export function coalescedReload(load: () => Promise<boolean | void>): CoalescedReload {
  let running: Promise<void> | null = null;
  let again = false;
  return {
    reload(): Promise<void> {
      if (running !== null) {
        again = true;
        return running;
      }
      running = (async () => {
        try {
          do {
            again = false;
            if ((await load()) === false) break;
          } while (again);
        } finally {
          running = null;
        }
      })();
      return running;
    },
    inFlight: () => running,
  };
}
