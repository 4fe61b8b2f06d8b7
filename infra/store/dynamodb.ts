// The DynamoDB ItemBackend: with dynamodb-table.ts (creating the table), the only file that
// imports @aws-sdk/client-dynamodb. Single table, keys pk (S) / sk (S), TTL attribute expiresAt,
// on-demand billing. Batches are retried until DynamoDB has processed every item
// (UnprocessedItems/UnprocessedKeys), throttling with backoff.
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
  DynamoDBClient,
  type AttributeValue,
  type KeysAndAttributes,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { TTL_ATTRIBUTE, conditionList, type AttrValue, type Conditions, type Item, type ItemBackend, type QueryPage, type ScanOptions, type ScanPage } from './backend.js';
import { DEFAULT_BACKOFF, backoffDelay, chunked, mapLimit, sleep, type BackoffOptions } from './concurrency.js';
import type { SnapshotStoreOptions } from './context.js';
import type { ItemKey } from './keys.js';
import { createSnapshotStore } from './snapshot-store.js';
import { StoreCorruptionError, type SnapshotStore } from './types.js';

type Row = Record<string, AttributeValue>;

function marshal(item: Readonly<Record<string, AttrValue>>): Row {
  const row: Row = {};
  for (const [k, v] of Object.entries(item)) {
    if (typeof v === 'string') row[k] = { S: v };
    else if (typeof v === 'number') row[k] = { N: String(v) };
    else if (typeof v === 'boolean') row[k] = { BOOL: v };
    else row[k] = { B: v };
  }
  return row;
}

function unmarshal(row: Row): Item {
  const item: Record<string, AttrValue> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v.S !== undefined) item[k] = v.S;
    else if (v.N !== undefined) item[k] = Number(v.N);
    else if (v.BOOL !== undefined) item[k] = v.BOOL;
    else if (v.B !== undefined) item[k] = v.B;
    else throw new StoreCorruptionError(`attribute ${k} has a type the store never writes`);
  }
  if (typeof item.pk !== 'string' || typeof item.sk !== 'string') throw new StoreCorruptionError('item without string keys');
  return item as Item;
}

/** `attribute_exists(pk)` (the item exists) and every condition, with their names and values. */
function conditionExpression(onlyIf: Conditions | undefined): { expression: string; names: Record<string, string>; values: Record<string, AttrValue> } {
  const parts = ['attribute_exists(pk)'];
  const names: Record<string, string> = {};
  const values: Record<string, AttrValue> = {};
  conditionList(onlyIf).forEach((c, i) => {
    names[`#c${i}`] = c.attribute;
    if ('equals' in c) {
      values[`:c${i}`] = c.equals;
      parts.push(`#c${i} = :c${i}`);
    } else {
      values[`:c${i}`] = 'absentOrBelow' in c ? c.absentOrBelow : c.absentOrAbove;
      parts.push(`(attribute_not_exists(#c${i}) OR #c${i} ${'absentOrBelow' in c ? '<' : '>'} :c${i})`);
    }
  });
  return { expression: parts.join(' AND '), names, values };
}

const keyRow = (k: ItemKey): Row => ({ pk: { S: k.pk }, sk: { S: k.sk } });

// Errors that mean "slow down and try again": the SDK retries these a few times itself; this
// outer loop keeps a publish alive through longer throttling (on-demand tables warming up).
const RETRYABLE = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'InternalServerError', 'ServiceUnavailable']);
const errorName = (e: unknown): string => (e instanceof Error ? e.name : '');
// The embedded store's own LevelDB failures (dynamodb-local.ts answers them as
// InternalServerError "LEVEL_…: …"): damaged files or a full disk do not heal in seconds, and
// retrying them only held each request about 10 s before its 503.
const permanent = (e: unknown): boolean => e instanceof Error && /^LEVEL_(CORRUPTION|IO_ERROR|DECODE_ERROR):/.test(e.message);

export interface DynamoDbBackendOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly backoff?: BackoffOptions;
  /** Batch requests in flight at once per call. */
  readonly concurrency?: number;
}

export class DynamoDbBackend implements ItemBackend {
  private readonly client: DynamoDBClient;
  private readonly table: string;
  private readonly backoff: BackoffOptions;
  private readonly concurrency: number;

  constructor(o: DynamoDbBackendOptions) {
    this.client = o.client;
    this.table = o.tableName;
    this.backoff = o.backoff ?? DEFAULT_BACKOFF;
    this.concurrency = o.concurrency ?? 8;
  }

  private async retrying<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (e) {
        if (!RETRYABLE.has(errorName(e)) || permanent(e) || attempt + 1 >= this.backoff.maxAttempts) throw e;
        await sleep(backoffDelay(attempt, this.backoff));
      }
    }
  }

  async putItems(items: readonly Item[]): Promise<void> {
    // 25 requests per batch is DynamoDB's limit; chunks ≤ 350 KiB keep a batch under its 16 MB.
    await mapLimit(chunked(items, 25), this.concurrency, async (batch) => {
      let pending: WriteRequest[] = batch.map((item) => ({ PutRequest: { Item: marshal(item) } }));
      for (let stalled = 0; pending.length > 0; ) {
        const res = await this.retrying(() => this.client.send(new BatchWriteItemCommand({ RequestItems: { [this.table]: pending } })));
        const left = res.UnprocessedItems?.[this.table] ?? [];
        if (left.length === 0) return;
        // Unprocessed writes mean throttling: always back off, give up only without progress.
        stalled = left.length < pending.length ? 0 : stalled + 1;
        if (stalled >= this.backoff.maxAttempts) throw new Error(`DynamoDB left ${left.length} writes unprocessed after ${stalled} attempts`);
        pending = left;
        await sleep(backoffDelay(stalled, this.backoff));
      }
    });
  }

  async getItems(keys: readonly ItemKey[], opts: { readonly attributes?: readonly string[]; readonly consistent?: boolean } = {}): Promise<Item[]> {
    const unique = [...new Map(keys.map((k) => [`${k.pk}\n${k.sk}`, k])).values()]; // BatchGetItem rejects duplicate keys
    const projection = opts.attributes
      ? {
          ProjectionExpression: ['#pk', '#sk', ...opts.attributes.map((_, i) => `#a${i}`)].join(', '),
          ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', ...Object.fromEntries(opts.attributes.map((a, i) => [`#a${i}`, a])) },
        }
      : {};
    const pages = await mapLimit(chunked(unique, 100), this.concurrency, async (batch) => {
      const found: Item[] = [];
      let request: KeysAndAttributes = { Keys: batch.map(keyRow), ConsistentRead: opts.consistent ?? true, ...projection };
      for (let stalled = 0; ; ) {
        const res = await this.retrying(() => this.client.send(new BatchGetItemCommand({ RequestItems: { [this.table]: request } })));
        const rows = res.Responses?.[this.table] ?? [];
        found.push(...rows.map(unmarshal));
        const left = res.UnprocessedKeys?.[this.table];
        if (!left?.Keys?.length) return found;
        // Unprocessed keys after progress are the 16 MB response limit: continue at once.
        // Without progress it is throttling: back off.
        stalled = rows.length > 0 ? 0 : stalled + 1;
        if (stalled >= this.backoff.maxAttempts) throw new Error(`DynamoDB left ${left.Keys.length} reads unprocessed after ${stalled} attempts`);
        if (stalled > 0) await sleep(backoffDelay(stalled, this.backoff));
        request = left;
      }
    });
    return pages.flat();
  }

  async getItem(key: ItemKey): Promise<Item | null> {
    const res = await this.retrying(() => this.client.send(new GetItemCommand({ TableName: this.table, Key: keyRow(key), ConsistentRead: true })));
    return res.Item ? unmarshal(res.Item) : null;
  }

  /** A conditional write; false when its condition failed. */
  private async conditional(send: () => Promise<unknown>): Promise<boolean> {
    try {
      await this.retrying(send);
      return true;
    } catch (e) {
      if (errorName(e) === 'ConditionalCheckFailedException') return false;
      throw e;
    }
  }

  async putIfAbsent(item: Item, nowSeconds: number): Promise<Item | null> {
    // The existing item is read after a failed condition; if it expired and vanished in between, try again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const written = await this.conditional(() =>
        this.client.send(new PutItemCommand({
          TableName: this.table,
          Item: marshal(item),
          ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':now': { N: String(nowSeconds) } },
        })),
      );
      if (written) return null;
      const existing = await this.getItem(item);
      if (existing) return existing;
    }
    throw new Error(`item ${item.pk} ${item.sk} kept appearing and disappearing`);
  }

  async putIfUnchanged(item: Item, expect: { readonly attribute: string; readonly equals: AttrValue } | null): Promise<boolean> {
    return this.conditional(() =>
      this.client.send(new PutItemCommand({
        TableName: this.table,
        Item: marshal(item),
        ...(expect === null
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: '#c = :c', ExpressionAttributeNames: { '#c': expect.attribute }, ExpressionAttributeValues: marshal({ ':c': expect.equals }) }),
      })),
    );
  }

  async updateIfExists(key: ItemKey, set: Readonly<Record<string, AttrValue>>, onlyIf?: Conditions): Promise<boolean> {
    const names = Object.keys(set);
    const cond = conditionExpression(onlyIf);
    return this.conditional(() =>
      this.client.send(new UpdateItemCommand({
        TableName: this.table,
        Key: keyRow(key),
        UpdateExpression: `SET ${names.map((_, i) => `#s${i} = :s${i}`).join(', ')}`,
        ConditionExpression: cond.expression,
        ExpressionAttributeNames: { ...Object.fromEntries(names.map((n, i) => [`#s${i}`, n])), ...cond.names },
        ExpressionAttributeValues: marshal({ ...Object.fromEntries(names.map((n, i) => [`:s${i}`, set[n]!])), ...cond.values }),
      })),
    );
  }

  async removeIfExists(key: ItemKey, attributes: readonly string[], onlyIf?: Conditions): Promise<boolean> {
    const cond = conditionExpression(onlyIf);
    const values = marshal(cond.values);
    return this.conditional(() =>
      this.client.send(new UpdateItemCommand({
        TableName: this.table,
        Key: keyRow(key),
        UpdateExpression: `REMOVE ${attributes.map((_, i) => `#r${i}`).join(', ')}`,
        ConditionExpression: cond.expression,
        ExpressionAttributeNames: { ...Object.fromEntries(attributes.map((n, i) => [`#r${i}`, n])), ...cond.names },
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      })),
    );
  }

  async queryPage(pk: string, opts: { readonly skPrefix: string; readonly limit: number; readonly descending: boolean; readonly startAfterSk?: string | null }): Promise<QueryPage> {
    const res = await this.retrying(() =>
      this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': { S: pk }, ':prefix': { S: opts.skPrefix } },
          ScanIndexForward: !opts.descending,
          Limit: opts.limit,
          ConsistentRead: true,
          ...(opts.startAfterSk ? { ExclusiveStartKey: keyRow({ pk, sk: opts.startAfterSk }) } : {}),
        }),
      ),
    );
    return { items: (res.Items ?? []).map(unmarshal), lastSk: res.LastEvaluatedKey?.sk?.S ?? null };
  }

  async scanPage(opts: ScanOptions): Promise<ScanPage> {
    // DynamoDB refuses names an expression does not use: '#sk' only where one does.
    const names: Record<string, string> = { '#pk': 'pk', ...(opts.sk !== undefined || opts.attributes ? { '#sk': 'sk' } : {}) };
    const values: Record<string, AttrValue> = {};
    const filters = opts.pkPrefixes.map((p, i) => {
      values[`:p${i}`] = p;
      return `begins_with(#pk, :p${i})`;
    });
    let filter = filters.length === 1 ? filters[0]! : `(${filters.join(' OR ')})`;
    if (opts.sk !== undefined) {
      values[':sk'] = opts.sk;
      filter += ' AND #sk = :sk';
    }
    opts.attributes?.forEach((a, i) => (names[`#a${i}`] = a));
    const res = await this.retrying(() =>
      this.client.send(
        new ScanCommand({
          TableName: this.table,
          FilterExpression: filter,
          ...(opts.attributes ? { ProjectionExpression: ['#pk', '#sk', ...opts.attributes.map((_, i) => `#a${i}`)].join(', ') } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: marshal(values),
          Limit: opts.limit,
          ConsistentRead: true,
          ...(opts.startAfter ? { ExclusiveStartKey: keyRow(opts.startAfter) } : {}),
        }),
      ),
    );
    const last = res.LastEvaluatedKey;
    return { items: (res.Items ?? []).map(unmarshal), last: last?.pk?.S !== undefined && last.sk?.S !== undefined ? { pk: last.pk.S, sk: last.sk.S } : null };
  }

  async deleteIf(key: ItemKey, onlyIf?: Conditions): Promise<Item | null> {
    const cond = conditionExpression(onlyIf);
    const values = marshal(cond.values);
    try {
      const res = await this.retrying(() =>
        this.client.send(new DeleteItemCommand({
          TableName: this.table,
          Key: keyRow(key),
          ConditionExpression: cond.expression,
          ...(Object.keys(cond.names).length > 0 ? { ExpressionAttributeNames: cond.names } : {}),
          ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
          ReturnValues: 'ALL_OLD',
        })),
      );
      return res.Attributes ? unmarshal(res.Attributes) : null;
    } catch (e) {
      if (errorName(e) === 'ConditionalCheckFailedException') return null;
      throw e;
    }
  }
}

export interface DynamoDbClientOptions {
  /** DYNAMODB_ENDPOINT: dynalite or DynamoDB Local; unset for AWS itself. */
  readonly endpoint?: string;
  /** Defaults to the SDK's resolution (AWS_REGION, profile). */
  readonly region?: string;
  /** Emulators accept any credentials; dummy ones keep the SDK from searching for real ones. */
  readonly dummyCredentials?: boolean;
  /** Given explicitly (a Worker's secrets) instead of the SDK's search (environment, profile, role). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
}

/** A client from the standard AWS settings (environment, profile, role), optionally at another endpoint. */
export function createDynamoDbClient(o: DynamoDbClientOptions = {}): DynamoDBClient {
  return new DynamoDBClient({
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.region ? { region: o.region } : o.dummyCredentials ? { region: 'local' } : {}),
    ...(o.credentials ? { credentials: { ...o.credentials } } : o.dummyCredentials ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
}

export function createDynamoDbStore(o: DynamoDbBackendOptions & SnapshotStoreOptions): SnapshotStore {
  return createSnapshotStore(new DynamoDbBackend(o), o);
}

export { createTableIfMissing, type TableSetup } from './dynamodb-table.js';
