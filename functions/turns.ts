// Turns of the event loop for work on the serving thread that would otherwise hold it: a large
// answer written in slices (json-stream.ts), a crowded node's read done in steps. Node agents'
// polls and health checks run between the turns.

/**
 * Work waiting for its next step, served one per turn of the event loop: however many large
 * answers are in progress, a turn carries one step, so a request that needs several turns (a
 * store read) waits a few milliseconds per turn, not a step of every answer per turn.
 */
const waiting: Array<() => void> = [];

const schedule = (): void => {
  const next = () => {
    waiting.shift()?.();
    if (waiting.length > 0) schedule();
  };
  if (typeof setImmediate === 'function') setImmediate(next);
  else setTimeout(next, 0);
};

/** Resolves on a later turn of the event loop, after other connections' I/O and timers. */
export const nextTurn = (): Promise<void> =>
  new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) schedule();
  });
