/**
 * One review action at a time per repository: actions on the same root run in the order they arrive, each after
 * the previous one settled (failed or not), so two clicks never interleave index writes or a check with an act.
 * Different repositories do not wait for each other. A root's entry is dropped once its queue is empty.
 */
export class RepositoryQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `task` after every task queued earlier for `root`; answers what it answers. */
  run<T>(root: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(root) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(root, tail);
    void tail.then(() => {
      if (this.tails.get(root) === tail) this.tails.delete(root);
    });
    return result;
  }

  /** Roots with a task running or waiting (for tests). */
  get busyRoots(): number {
    return this.tails.size;
  }
}
