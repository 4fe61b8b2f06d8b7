// A compute thread's first module (compute-pool.ts): under `npm start` the sources are
// TypeScript run by tsx, whose loader a worker thread does not inherit, so it is registered here
// before the thread's entry is imported. Compiled JavaScript is imported as it is.
import { workerData } from 'node:worker_threads';

// The serving thread has already said it once for the process.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
