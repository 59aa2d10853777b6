/**
 * How inbound frames are run. `serial(key, task)`: tasks with the same key
 * run one after another in the order they were queued, each awaited (a
 * panel's keys, lifecycle events); different keys never wait for each other.
 * `concurrent(task)`: runs at once (tool calls, commands, interceptions).
 * A task that throws or rejects is reported to `onError` and never stops its
 * lane. `idle()` resolves when every queued task has settled.
 */
export declare class Lanes {
    private readonly onError;
    private readonly tails;
    private readonly running;
    constructor(onError: (error: unknown, what: string) => void);
    serial(key: string, what: string, task: () => unknown): void;
    concurrent(what: string, task: () => unknown): void;
    idle(): Promise<void>;
    private guard;
    private track;
}
