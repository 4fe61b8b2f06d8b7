// One embedded DynamoDB-compatible server per test file, started before its tests and closed
// after them: the real SDK against a real server, never a mock of the SDK.
import { afterAll, beforeAll } from 'vitest';
import { startLocalDynamo, type LocalDynamo } from '../../infra/dynamodb-local.js';

/** Registers the file's server; the getter is for use inside tests (it throws before the start). */
export function useLocalDynamo(): () => LocalDynamo {
  let local: LocalDynamo | undefined;
  beforeAll(async () => {
    local = await startLocalDynamo();
  });
  afterAll(async () => {
    await local?.close();
  });
  return () => {
    if (!local) throw new Error('the local DynamoDB server is not started yet (use it inside a test)');
    return local;
  };
}
