/**
 * Awaits a promise that must reject with a ZotError and returns that error;
 * anything else (resolving, another error type) fails the test.
 */
import { ZotError } from "../../src/common/errors.ts";

export async function caughtZotError(promise: Promise<unknown>): Promise<ZotError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ZotError) return err;
    throw err;
  }
  throw new Error("expected a ZotError");
}
