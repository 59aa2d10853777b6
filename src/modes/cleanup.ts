/**
 * A last-in-first-out list of release steps. Setup registers each step as
 * soon as the resource exists, so a failure half way through still releases
 * what was acquired; run() executes every step once, in reverse order, and a
 * failing step does not stop the others (its error goes to onError).
 */
export type CleanupStep = () => void | Promise<void>;

export class Cleanup {
  readonly #steps: CleanupStep[] = [];
  #ran = false;

  add(step: CleanupStep): void {
    this.#steps.push(step);
  }

  async run(onError: (err: unknown) => void = () => {}): Promise<void> {
    if (this.#ran) return;
    this.#ran = true;
    while (this.#steps.length > 0) {
      const step = this.#steps.pop();
      try {
        await step?.();
      } catch (err) {
        onError(err);
      }
    }
  }
}
