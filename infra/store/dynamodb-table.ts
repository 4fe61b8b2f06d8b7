// Creating the single table (keys pk/sk, on-demand) and turning on TTL on expiresAt: for the
// embedded store, emulators and `npm run infra:local`; AWS deployments create it from
// infra/template.yaml.
import { CreateTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, UpdateTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TTL_ATTRIBUTE } from './backend.js';
import { sleep } from './concurrency.js';

const errorName = (e: unknown): string => (e instanceof Error ? e.name : '');

export interface TableSetup {
  readonly created: boolean;
  /** 'unsupported' on emulators without UpdateTimeToLive (dynalite): reads still hide expired versions. */
  readonly ttl: 'enabled' | 'unsupported';
}

/** Idempotent: creates the table (pk/sk, on-demand) and enables TTL on expiresAt when missing. */
export async function createTableIfMissing(client: DynamoDBClient, tableName: string, timeoutMs = 60_000): Promise<TableSetup> {
  let created = false;
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (e) {
    if (errorName(e) !== 'ResourceNotFoundException') throw e;
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'S' },
          ],
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      created = true;
    } catch (e2) {
      // Another process created it first: fine, wait for it like for our own.
      if (errorName(e2) !== 'ResourceInUseException') throw e2;
    }
  }
  for (const deadline = Date.now() + timeoutMs; ; await sleep(50)) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    if (Date.now() > deadline) throw new Error(`table ${tableName} is still ${Table?.TableStatus} after ${timeoutMs} ms`);
  }
  const { TimeToLiveDescription: ttl } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (ttl?.TimeToLiveStatus === 'ENABLED' || ttl?.TimeToLiveStatus === 'ENABLING') return { created, ttl: 'enabled' };
  try {
    await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }));
    return { created, ttl: 'enabled' };
  } catch (e) {
    if (errorName(e) === 'UnknownOperationException') return { created, ttl: 'unsupported' };
    throw e;
  }
}
