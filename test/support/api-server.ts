// The API on a memory store, served over a real socket on an ephemeral loopback port, its answers
// compressed as the Node server's are (the agents' fetch asks for gzip): what the agent tests run
// their agents against.
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp, type AppDeps } from '../../functions/app.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { nodeAnswerCompressor } from '../../functions/node-compression.js';

export async function startApi(access: NonNullable<AppDeps['access']> = { kind: 'anonymous' }): Promise<{ server: ServerType; base: string }> {
  const app = createApp({ store: createMemoryStore(), access, answerCompressor: nodeAnswerCompressor });
  let server!: ServerType;
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
