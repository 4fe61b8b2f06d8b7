// `npm run infra:local`: creates the table idempotently — at DYNAMODB_ENDPOINT when set, else in
// the embedded store's directory (the same one `npm start` opens).
import { startLocalDynamo } from './dynamodb-local.js';
import { storeSettingsFromEnv } from './store/config.js';
import { createDynamoDbClient, createTableIfMissing } from './store/dynamodb.js';

const s = storeSettingsFromEnv(process.env);
if (s.kind === 'memory') {
  console.log('STORE=memory: there is no table to create');
} else if (s.kind === 'embedded') {
  const local = await startLocalDynamo({ path: s.path, tableName: s.tableName });
  console.log(`table ${s.tableName} in ${s.path}: ${local.table.created ? 'created' : 'already there'} (TTL ${local.table.ttl})`);
  await local.close();
} else {
  const client = createDynamoDbClient({ ...(s.endpoint ? { endpoint: s.endpoint } : {}), ...(s.region ? { region: s.region } : {}), dummyCredentials: s.dummyCredentials });
  const setup = await createTableIfMissing(client, s.tableName);
  console.log(`table ${s.tableName}${s.endpoint ? ` at ${s.endpoint}` : ''}: ${setup.created ? 'created' : 'already there'} (TTL ${setup.ttl})`);
  client.destroy();
}
