// Random changes between versions, as a watcher would send them: pod edits (relabel, move,
// readdress onto another pod's address, host network, delete, add, ports) and, less often, any
// change of objects (policies, namespaces, nodes) drawn from another random snapshot.
import fc from 'fast-check';
import { nextVersion, type CompiledState, type NextVersion } from '../../core/sets/next-version.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { changeArb, changeOf, NODES } from './random-snapshot.js';

type PodItem = { kind: 'Pod'; metadata: { name: string; namespace: string; labels: Record<string, string> }; spec: { nodeName: string; hostNetwork: boolean; containers: { name: string; ports: object[] }[] }; status: { phase: string; podIP: string; podIPs: { ip: string }[] } };

const podEdit = fc.oneof(
  fc.record({ op: fc.constant('relabel' as const), pod: fc.nat(), labels: fc.dictionary(fc.constantFrom('app', 'team'), fc.constantFrom('x', 'y'), { maxKeys: 2 }) }),
  fc.record({ op: fc.constant('move' as const), pod: fc.nat() }),
  fc.record({ op: fc.constant('readdress' as const), pod: fc.nat(), other: fc.nat(), fresh: fc.boolean() }),
  fc.record({ op: fc.constant('host' as const), pod: fc.nat() }),
  fc.record({ op: fc.constant('delete' as const), pod: fc.nat() }),
  fc.record({ op: fc.constant('add' as const), pod: fc.nat(), ns: fc.constantFrom('a', 'b', 'c', 'new') }),
  fc.record({ op: fc.constant('ports' as const), pod: fc.nat(), other: fc.nat() }),
);
/** One version's change: pod edits (4 in 5: the incremental path) or any change of objects. */
export const versionStepArb = fc.oneof({ weight: 4, arbitrary: fc.array(podEdit, { minLength: 1, maxLength: 3 }) }, { weight: 1, arbitrary: changeArb });

const clone = <T>(v: T): T => structuredClone(v);

/** Pod edits as a change on the current objects (apply and delete). */
function podChange(objects: readonly unknown[], edits: readonly { op: string; pod: number }[], serial: number) {
  const pods = objects.filter((o) => (o as PodItem).kind === 'Pod') as PodItem[];
  const apply = new Map<string, PodItem>();
  const del: { kind: string; namespace: string; name: string }[] = [];
  for (const e of edits as { op: string; pod: number; labels?: Record<string, string>; other?: number; fresh?: boolean; ns?: string }[]) {
    if (pods.length === 0) break;
    const p = clone(apply.get(pods[e.pod % pods.length]!.metadata.name + '/' + pods[e.pod % pods.length]!.metadata.namespace) ?? pods[e.pod % pods.length]!);
    const key = `${p.metadata.name}/${p.metadata.namespace}`;
    const other = pods[(e.other ?? 0) % pods.length]!;
    switch (e.op) {
      case 'relabel':
        p.metadata.labels = e.labels!;
        break;
      case 'move':
        p.spec.nodeName = p.spec.nodeName === NODES[0]!.name ? NODES[1]!.name : NODES[0]!.name;
        break;
      case 'readdress': {
        const ip = e.fresh ? `10.0.9.${serial % 250}` : other.status.podIPs[0]!.ip;
        p.status.podIP = ip;
        p.status.podIPs = [{ ip }, ...p.status.podIPs.slice(1).filter((x) => x.ip.includes(':') !== ip.includes(':'))];
        break;
      }
      case 'host':
        p.spec.hostNetwork = !p.spec.hostNetwork;
        break;
      case 'ports':
        p.spec.containers = clone(other.spec.containers);
        break;
      case 'delete':
        apply.delete(key);
        del.push({ kind: 'Pod', namespace: p.metadata.namespace, name: p.metadata.name });
        continue;
      case 'add':
        p.metadata.name = `q${serial}-${e.pod}`;
        p.metadata.namespace = e.ns!;
        break;
    }
    apply.set(`${p.metadata.name}/${p.metadata.namespace}`, p);
  }
  const deleted = new Set(del.map((d) => `${d.name}/${d.namespace}`));
  return { apply: [...apply.entries()].filter(([k]) => !deleted.has(k)).map(([, v]) => v), delete: del };
}

/** A drawn step as a change on the current objects: {apply, delete} as the API takes them. */
export function stepChange(objects: readonly unknown[], step: StepValue, serial: number) {
  return Array.isArray(step) ? podChange(objects, step, serial) : changeOf({ items: objects }, step as Parameters<typeof changeOf>[1]);
}

type StepValue = typeof versionStepArb extends fc.Arbitrary<infer T> ? T : never;

/** The version a drawn step makes from `state`, as PUT with {base, changes} does; null when the step's objects do not parse or apply. */
export function nextVersionFrom(state: CompiledState, step: StepValue, serial: number): Extract<NextVersion, { ok: true }> | null {
  const raw = stepChange(state.snapshot.objects, step, serial);
  const apply = parseSnapshot({ items: raw.apply }, '$.changes.apply');
  if (!apply.ok) return null;
  const next = nextVersion(state, { apply: apply.snapshot, delete: raw.delete });
  return next.ok ? next : null;
}
