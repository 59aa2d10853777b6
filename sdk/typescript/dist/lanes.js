/**
 * How inbound frames are run. `serial(key, task)`: tasks with the same key
 * run one after another in the order they were queued, each awaited (a
 * panel's keys, lifecycle events); different keys never wait for each other.
 * `concurrent(task)`: runs at once (tool calls, commands, interceptions).
 * A task that throws or rejects is reported to `onError` and never stops its
 * lane. `idle()` resolves when every queued task has settled.
 */
export class Lanes {
    onError;
    tails = new Map();
    running = new Set();
    constructor(onError) {
        this.onError = onError;
    }
    serial(key, what, task) {
        const previous = this.tails.get(key) ?? Promise.resolve();
        const next = previous.then(() => this.guard(task, what));
        this.tails.set(key, next);
        this.track(next);
        void next.then(() => {
            if (this.tails.get(key) === next)
                this.tails.delete(key);
        });
    }
    concurrent(what, task) {
        this.track(this.guard(task, what));
    }
    async idle() {
        while (this.running.size > 0)
            await Promise.all([...this.running]);
    }
    async guard(task, what) {
        try {
            await task();
        }
        catch (error) {
            this.onError(error, what);
        }
    }
    track(promise) {
        this.running.add(promise);
        void promise.then(() => this.running.delete(promise));
    }
}
