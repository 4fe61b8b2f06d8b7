// What the embedded store charges per item rather than per byte: the same bodies written as one
// item each, then packed k to an item, through the DynamoDB store code on dynalite (each on a
// fresh on-disk table, alternating). The measured basis for packing small content-addressed
// items (at L a whole publish writes 100,926 set bodies of ~300 bytes, one item each).
//
//   node --import tsx bench/item-cost.ts [bodies] [bytes per body] [bodies per item]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDynamo } from '../infra/dynamodb-local.js';
import { DynamoDbBackend } from '../infra/store/dynamodb.js';

const [bodies = 20_000, bodyBytes = 300, perItem = 100] = process.argv.slice(2).map(Number);

async function writeMs(per: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'netpolc-item-cost-'));
  const local = await startLocalDynamo({ path: dir, tableName: 'bench' });
  try {
    const backend = new DynamoDbBackend({ client: local.client, tableName: 'bench' });
    const items = Array.from({ length: Math.ceil(bodies / per) }, (_, i) => ({ pk: `e#${i}`, sk: '0', body: new Uint8Array(bodyBytes * per).fill(i % 251), writtenAt: 1 }));
    const started = performance.now();
    await backend.putItems(items);
    return performance.now() - started;
  } finally {
    await local.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (let round = 0; round < 2; round++) {
  const single = await writeMs(1);
  const packed = await writeMs(perItem);
  console.log(`${bodies} bodies of ${bodyBytes} B: one per item ${Math.round(single)} ms, ${perItem} per item ${Math.round(packed)} ms (${(single / packed).toFixed(1)}×)`);
}
