// A compute thread (compute-pool.ts): the same app as the serving thread, with the same
// settings and store, answering one request at a time as data. Its access log is off (the
// serving thread logs every request); compile/publish figures and store errors travel back with
// each answer for the serving thread's /metrics. Answers are compressed here, when the client
// asks, so that the serving thread only forwards bytes (an answer can be hundreds of MiB).
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../../infra/open-store.js';
import { storeSettingsFromEnv, type StoreSettings } from '../../infra/store/config.js';
import { createApp } from '../app.js';
import { depsFromEnv } from '../config.js';
import { nodeSha256Hex } from '../node-sha256.js';
import { nodeAnswerCompressor, nodeCompression } from '../node-compression.js';
import { Metrics } from '../ops/metrics.js';
import type { Observation, WireRequest, WireResponse } from '../offload.js';
import { COMPUTE_THREAD_NICE, DRAIN, DRAINED, READY, type ComputeWorkerData } from './compute-pool.js';

const data = workerData as ComputeWorkerData;
// The serving thread answers node polls in milliseconds; a compile here may run for seconds. On
// Linux the nice value is per thread (setpriority(2), "a per-thread attribute" under NPTL), so
// raising this thread's (no privilege needed) lets the serving thread have a core first when the
// machine is busy. Elsewhere it may apply to the whole process, or not at all: then left as is.
if (process.platform === 'linux') {
  try {
    setPriority(Math.min(19, getPriority() + COMPUTE_THREAD_NICE));
  } catch {
    // A sandbox that forbids it: same priority as the serving thread, as before.
  }
}
const settings = storeSettingsFromEnv(data.env);
// The embedded store lives in the serving thread; threads reach it over its loopback endpoint.
const shared: StoreSettings | null =
  settings.kind === 'embedded' && data.storeEndpoint !== null
    ? { kind: 'dynamodb', tableName: settings.tableName, endpoint: data.storeEndpoint, region: null, dummyCredentials: true, retentionSeconds: settings.retentionSeconds }
    : settings.kind === 'dynamodb'
      ? settings
      : null;
const store = shared ? (await openStore(shared, { sha256Hex: nodeSha256Hex, compression: nodeCompression })).store : undefined;

let observations: Observation[] = [];
const metrics = new Metrics();
for (const name of ['compile', 'publish'] as const) {
  const histogram = metrics[name];
  const observe = histogram.observe.bind(histogram);
  histogram.observe = (seconds, labels = {}) => {
    observe(seconds, labels);
    observations.push([name, seconds, labels]);
  };
}
const storeErrors = metrics.storeErrors.inc.bind(metrics.storeErrors);
metrics.storeErrors.inc = (labels = {}, by = 1) => {
  storeErrors(labels, by);
  observations.push(['storeErrors', by, labels]);
};

const app = createApp({ ...depsFromEnv(data.env, 'node'), logAccess: null, metrics, ...(store ? { store, storeDescription: data.storeDescription } : {}), sha256Hex: nodeSha256Hex, answerCompressor: nodeAnswerCompressor });

parentPort!.on('message', async (req: WireRequest | typeof DRAIN) => {
  if (req === DRAIN) {
    await store?.settled();
    return parentPort!.postMessage(DRAINED);
  }
  observations = [];
  const res = await app.fetch(new Request(req.url, { method: req.method, headers: req.headers as [string, string][], ...(req.body ? { body: req.body } : {}) }));
  const body = new Uint8Array(await res.arrayBuffer());
  const answer: WireResponse = { status: res.status, headers: [...res.headers], body, observations };
  parentPort!.postMessage(answer, [body.buffer as ArrayBuffer]);
});
parentPort!.postMessage(READY);
