// Versions stored by a netpolc that hashed snapshots line by line (before runs) keep that hash:
// the same content sent again is still the same version (200 unchanged, not a 409), other
// content under that version is still a conflict, and changes on such a version still apply.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// The app first: it extends zod with the OpenAPI methods the schemas use.
import { createApp } from '../../functions/app.js';
import { compiledState } from '../../core/sets/next-version.js';
import { formerSnapshotHash, snapshotHash } from '../../core/snapshot/hash.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { parseSnapshot } from '../../schemas/snapshot.js';

const example = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'cluster.json'), 'utf8')) as { items: any[] };

describe('a version stored with the former snapshot hash', () => {
  it('is the same version when the same content comes again, a conflict for other content, and a base for changes', async () => {
    const store = createMemoryStore();
    const parsed = parseSnapshot(example);
    if (!parsed.ok) throw new Error('example does not parse');
    const { state, stats } = compiledState(parsed.snapshot);
    const former = formerSnapshotHash(state.snapshot.objects);
    expect(former).not.toBe(snapshotHash(state.snapshot.objects));
    await store.publish('prod', '1', { snapshotHash: former, objects: {}, compile: stats, ir: state.ir, items: state.snapshot.objects });

    const app = createApp({ store, access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    const put = (rv: string, body: unknown) => app.request(`/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const again = await put('1', example);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: 'unchanged', latest: true, header: { snapshotHash: former } });
    const other = { ...example, items: example.items.filter((o) => o.kind !== 'NetworkPolicy') };
    expect((await put('1', other)).status).toBe(409);
    const web = example.items.find((o) => o.metadata.name === 'web');
    const res = await put('2', { base: '1', changes: { apply: [{ ...web, metadata: { ...web.metadata, labels: { app: 'storefront' } } }] } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ status: 'created', latest: true });
  });
});
