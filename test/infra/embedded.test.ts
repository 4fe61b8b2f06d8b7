// The embedded default (`npm start`): dynalite on disk keeps snapshots across a restart, refuses a
// second process on the same directory with a reason, and the environment picks the store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalDynamo } from '../../infra/dynamodb-local.js';
import { openStore } from '../../infra/open-store.js';
import { storeSettingsFromEnv } from '../../infra/store/config.js';
import { syntheticSnapshot } from './support.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('embedded store', () => {
  it('keeps published versions across a restart and refuses a second process on the same directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'netpolc-store-'));
    dirs.push(dir);
    const settings = storeSettingsFromEnv({ DATA_DIR: dir });
    expect(settings).toMatchObject({ kind: 'embedded', path: `${dir}/dynalite` });
    const snap = syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant: 1 });

    const first = await openStore(settings);
    await first.store.publish('c', '5', snap);
    await expect(startLocalDynamo({ path: `${dir}/dynalite` })).rejects.toThrow(/in use by another process/);
    await first.close();

    const second = await openStore(settings);
    expect((await second.store.latest('c'))?.version).toBe('5');
    expect((await second.store.getNodeTables('c', '5', 'node-1'))?.pods).toEqual(snap.ir.nodes['node-1']!.pods);
    await second.close();
  });

  it('reads the store settings from the environment', () => {
    expect(storeSettingsFromEnv({ STORE: 'memory' })).toEqual({ kind: 'memory', retentionSeconds: 604800 });
    expect(storeSettingsFromEnv({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', SNAPSHOT_RETENTION_SECONDS: '60' })).toEqual({
      kind: 'dynamodb',
      tableName: 'netpolc',
      endpoint: 'http://127.0.0.1:8000',
      region: null,
      dummyCredentials: true,
      retentionSeconds: 60,
    });
    expect(storeSettingsFromEnv({ DYNAMODB_TABLE: 'snapshots', AWS_REGION: 'eu-west-1' })).toMatchObject({ kind: 'dynamodb', tableName: 'snapshots', endpoint: null, region: 'eu-west-1', dummyCredentials: false });
    expect(storeSettingsFromEnv({})).toEqual({ kind: 'embedded', tableName: 'netpolc', path: './.data/dynalite', retentionSeconds: 604800 });
    expect(() => storeSettingsFromEnv({ STORE: 'redis' })).toThrow(/STORE must be/);
    expect(() => storeSettingsFromEnv({ SNAPSHOT_RETENTION_SECONDS: '-1' })).toThrow(/SNAPSHOT_RETENTION_SECONDS/);
  });
});
