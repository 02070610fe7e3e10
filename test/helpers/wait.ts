// Waiting for something the server does on its own time (a cleanup after a dropped connection).
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls until `check` answers something truthy, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
