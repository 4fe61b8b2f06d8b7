// Kinds netpolc does not read are counted by name, whatever the name: `__proto__`,
// `constructor` and `hasOwnProperty` are words like any other, never Object.prototype's (a plain
// object counted `constructor` as "function Object() … 1" and dropped `__proto__`).
import { describe, expect, it } from 'vitest';
import { snapshotOf } from '../support/cluster-builders.js';
import { buildCluster } from '../../core/cluster.js';
import { compiledState, nextVersion } from '../../core/sets/next-version.js';

const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } };
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] }, status: { podIP: '10.0.0.1' } };
const other = (kind: string, name: string) => ({ apiVersion: 'example.com/v1', kind, metadata: { name } });

const parsed = snapshotOf;

describe('ignored kinds are counted by name', () => {
  it('__proto__, constructor and hasOwnProperty like any other kind', () => {
    const snapshot = parsed([ns, pod, other('__proto__', 'a'), other('__proto__', 'b'), other('constructor', 'c'), other('hasOwnProperty', 'd')]);
    expect(Object.entries(snapshot.ignored).sort()).toEqual([['__proto__', 2], ['constructor', 1], ['hasOwnProperty', 1]]);
    expect(JSON.parse(JSON.stringify(snapshot.ignored))).toEqual({ ['__proto__']: 2, constructor: 1, hasOwnProperty: 1 });
    expect(buildCluster(snapshot).warnings.find((w) => w.code === 'kinds-ignored')?.message).toBe('ignored objects of kinds policy evaluation does not read: __proto__ (2), constructor (1), hasOwnProperty (1)');
  });

  it("a version from changes adds the changes' counts to the base's, as a whole snapshot counts them", () => {
    const base = compiledState(parsed([ns, pod, other('constructor', 'c')])).state;
    const next = nextVersion(base, { apply: parsed([other('__proto__', 'a'), other('constructor', 'e')]), delete: [] });
    if (!next.ok) throw new Error(JSON.stringify(next.issues));
    expect(Object.entries(next.state.snapshot.ignored).sort()).toEqual([['__proto__', 1], ['constructor', 2]]);
  });
});
