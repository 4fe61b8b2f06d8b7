// Node only: the worker threads that answer compute routes (functions/offload.ts). One request
// per thread at a time, so a thread stopped for a request over its budget takes no other
// request with it. The serving thread keeps answering node agents, health checks and docs
// while every thread computes. Budgets: wall time and heap per request, and how many requests
// may wait; a request over a budget gets 413 naming it, an overloaded pool 503 + Retry-After.
import { Worker } from 'node:worker_threads';
import type { Offload, WireRequest, WireResponse } from '../offload.js';
import type { ComputeSettings } from '../config.js';

/** How much higher each compute thread's nice value is than the serving thread's (Linux; compute-worker.ts). */
export const COMPUTE_THREAD_NICE = 10;

/**
 * Each compute thread's young generation (V8's nursery; Node's default is ~48 MiB). A compile
 * makes mostly short-lived garbage (zod's copies of every object, per-pod keys, encoded text);
 * a larger nursery lets more of it die young instead of being promoted and marked. Measured
 * over HTTP at M (`bench/request-path.ts M`, alternating): POST /v1/compile 1,767/1,770/1,916 ms
 * at the default, 1,469/1,605/1,602 ms at 192, 1,478 ms at 384 with 250 MB more peak RSS.
 */
export const COMPUTE_YOUNG_GENERATION_MB = 192;

/** Asks a thread to finish its work left after answers; it answers DRAINED. */
export const DRAIN = 'drain';
export const DRAINED = 'drained';
/** A thread says it has loaded its app and takes requests. */
export const READY = 'ready';
const DRAIN_MS = 10_000;

/** What a compute thread needs to build the same app as the serving thread. */
export interface ComputeWorkerData {
  readonly entry: string;
  /** The environment the app's settings are read from (tokens, store, limits). */
  readonly env: Readonly<Record<string, string>>;
  /** The embedded store's endpoint, which threads reach over loopback; null: no shared store. */
  readonly storeEndpoint: string | null;
  /** Where the store is, as its errors name it. */
  readonly storeDescription: string;
}

interface Job {
  readonly req: WireRequest;
  readonly slot: number | null;
  readonly signal: AbortSignal;
  readonly resolve: (res: WireResponse) => void;
}

interface Slot {
  worker: Worker;
  /** The thread has loaded: a request's time budget never pays for a thread's start. */
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  started: number;
}

const json = (status: number, body: object, headers: [string, string][] = []): WireResponse => ({
  status,
  headers: [['content-type', 'application/json'], ...headers],
  body: new TextEncoder().encode(JSON.stringify(body)),
  observations: [],
});

/** Cluster names spread over threads by a stable hash, so one cluster's requests meet its warm state. */
function slotOf(affinity: string, slots: number): number {
  let h = 2166136261;
  for (let i = 0; i < affinity.length; i++) h = Math.imul(h ^ affinity.charCodeAt(i), 16777619);
  return (h >>> 0) % slots;
}

export class ComputePool {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  /** Recent request durations (seconds), for Retry-After. */
  private readonly recent: number[] = [];
  private closed = false;

  constructor(
    private readonly settings: ComputeSettings,
    private readonly data: Omit<ComputeWorkerData, 'entry'>,
  ) {
    this.slots = Array.from({ length: settings.workers }, () => ({ worker: this.spawn(), ready: false, job: null, timer: null, started: 0 }));
  }

  /** Threads answering a request now, and requests waiting for one (the /metrics gauges). */
  get busy(): number {
    return this.slots.filter((s) => s.job !== null).length;
  }
  get waiting(): number {
    return this.queue.length;
  }
  /** Threads that have loaded the app and said so (READY). */
  get startedThreads(): number {
    return this.slots.filter((s) => s.ready).length;
  }
  get threads(): number {
    return this.slots.length;
  }

  readonly run: Offload = (req, affinity, signal) =>
    new Promise<WireResponse>((resolve) => {
      if (this.closed) return resolve(json(503, { error: 'unavailable', message: 'the server is shutting down' }, [['retry-after', '5']]));
      if (this.queue.length >= this.settings.maxQueued && !this.hasIdle(affinity)) {
        const wait = this.retryAfterSeconds();
        return resolve(json(503, { error: 'unavailable', message: `every compute thread is busy and ${this.queue.length} requests are waiting (MAX_QUEUED_REQUESTS=${this.settings.maxQueued}); retry in ${wait} s` }, [['retry-after', String(wait)]]));
      }
      const job: Job = { req, slot: affinity === null ? null : slotOf(affinity, this.slots.length), signal, resolve };
      signal.addEventListener('abort', () => this.cancel(job), { once: true });
      this.queue.push(job);
      this.dispatch();
    });

  /**
   * Stops every thread once its store work left after answers is done (DRAIN_MS at most: what is
   * left then is finished by the cluster's next publish); requests still waiting get 503.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve(json(503, { error: 'unavailable', message: 'the server is shutting down' }, [['retry-after', '5']]));
    await Promise.all(
      this.slots.map(async ({ worker }) => {
        const drained = new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, DRAIN_MS);
          worker.on('message', (m: unknown) => {
            if (m === DRAINED) resolve(clearTimeout(timer));
          });
          worker.once('exit', () => resolve(clearTimeout(timer)));
        });
        worker.postMessage(DRAIN);
        await drained;
        await worker.terminate();
      }),
    );
  }

  /** A thread free for one more request: idle (or starting) and not already promised to a waiting one. */
  private hasIdle(affinity: string | null): boolean {
    if (affinity === null) return this.slots.filter((s) => s.job === null).length > this.queue.length;
    const i = slotOf(affinity, this.slots.length);
    return this.slots[i]!.job === null && !this.queue.some((j) => j.slot === null || j.slot === i);
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./compute-worker-boot.mjs', import.meta.url), {
      workerData: { ...this.data, entry: new URL(`./compute-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href } satisfies ComputeWorkerData,
      resourceLimits: { maxOldGenerationSizeMb: this.settings.memoryMb, maxYoungGenerationSizeMb: COMPUTE_YOUNG_GENERATION_MB },
      // The thread's own output is the process's: errors it logs reach the operator.
      stdout: false,
      stderr: false,
    });
    worker.on('message', (res: WireResponse | typeof DRAINED | typeof READY) => (res === READY ? this.started(worker) : this.finish(worker, res)));
    worker.on('error', (e: Error & { code?: string }) => {
      const res =
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? json(413, { error: 'too_large', budget: 'memory', message: `answering this request needs more than the memory budget of ${this.settings.memoryMb} MiB per request (REQUEST_MEMORY_MB); send a smaller snapshot or fewer nodes, JSON rather than YAML, or raise the budget` })
          : json(500, { error: 'internal', message: 'the compute thread failed; this is a bug in netpolc, please report it' });
      if (e.code !== 'ERR_WORKER_OUT_OF_MEMORY') console.error(e);
      this.replace(worker, res);
    });
    worker.on('exit', () => this.replace(worker, json(500, { error: 'internal', message: 'the compute thread exited; this is a bug in netpolc, please report it' })));
    worker.unref();
    return worker;
  }

  private dispatch(): void {
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i]!;
      if (slot.job !== null || !slot.ready) continue;
      const at = this.queue.findIndex((j) => j.slot === null || j.slot === i);
      if (at < 0) continue;
      const job = this.queue.splice(at, 1)[0]!;
      slot.job = job;
      slot.started = performance.now();
      slot.timer = setTimeout(() => this.overTime(slot), this.settings.timeSeconds * 1000);
      slot.worker.postMessage(job.req, job.req.body ? [job.req.body.buffer as ArrayBuffer] : []);
    }
  }

  private started(worker: Worker): void {
    const slot = this.slots.find((s) => s.worker === worker);
    if (!slot) return;
    slot.ready = true;
    this.dispatch();
  }

  private finish(worker: Worker, res: WireResponse | typeof DRAINED): void {
    if (res === DRAINED) return;
    const slot = this.slots.find((s) => s.worker === worker);
    if (!slot?.job) return;
    const job = slot.job;
    this.settle(slot);
    job.resolve(res);
    this.dispatch();
  }

  private settle(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    this.recent.push((performance.now() - slot.started) / 1000);
    if (this.recent.length > 20) this.recent.shift();
    slot.job = null;
    slot.timer = null;
  }

  private overTime(slot: Slot): void {
    const s = this.settings.timeSeconds;
    this.stop(slot, json(413, { error: 'too_large', budget: 'time', message: `answering this request takes longer than the time budget of ${s} s per request (REQUEST_TIME_BUDGET_SECONDS); send a smaller snapshot or fewer nodes, or raise the budget` }));
  }

  private cancel(job: Job): void {
    const waiting = this.queue.indexOf(job);
    if (waiting >= 0) {
      this.queue.splice(waiting, 1);
      return job.resolve(json(499, { error: 'cancelled', message: 'the client closed the request' }));
    }
    // The client is gone: stop computing its answer.
    const slot = this.slots.find((s) => s.job === job);
    if (slot) this.stop(slot, json(499, { error: 'cancelled', message: 'the client closed the request' }));
  }

  /** Stops a thread mid-request (like a crash: the store keeps a publish atomic) and starts another. */
  private stop(slot: Slot, res: WireResponse): void {
    const old = slot.worker;
    this.replace(old, res);
    void old.terminate();
  }

  /** A thread is gone (stopped, out of memory, exited): its request gets `res`, a new thread takes its place. */
  private replace(worker: Worker, res: WireResponse): void {
    const slot = this.slots.find((s) => s.worker === worker);
    if (!slot) return;
    let job = slot.job;
    if (job) this.settle(slot);
    else if (!slot.ready) {
      // The thread failed while starting: the request waiting for it gets the failure, as it
      // would have on a started thread, instead of waiting for threads that never start.
      const i = this.slots.indexOf(slot);
      const at = this.queue.findIndex((j) => j.slot === null || j.slot === i);
      if (at >= 0) job = this.queue.splice(at, 1)[0]!;
    }
    worker.removeAllListeners();
    worker.on('error', () => undefined);
    if (!this.closed) {
      slot.worker = this.spawn();
      slot.ready = false;
    }
    job?.resolve(res);
    this.dispatch();
  }

  private retryAfterSeconds(): number {
    const mean = this.recent.length === 0 ? 1 : this.recent.reduce((a, b) => a + b, 0) / this.recent.length;
    return Math.min(120, Math.max(1, Math.ceil((mean * (this.queue.length + 1)) / this.slots.length)));
  }
}
