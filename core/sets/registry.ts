// The sets of one compile: each definition gets its id once and its members resolved once,
// however many tables use it. Owned by one compile call (no module state).
import type { Cluster } from '../cluster.js';
import { portableSha256Hex, type Sha256Hex } from '../compile/table-id.js';
import type { Peer, PortMatch } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { IrSet, SetDefinition, SetId } from './ir.js';
import { addressMembers, portElements } from './members.js';

/** `prefix` + 16 hex digits of the SHA-256 of text: the ids of this form. */
export const contentId = (prefix: string, text: string, sha256Hex: Sha256Hex): string => `${prefix}${sha256Hex(text).slice(0, 16)}`;

export class SetRegistry {
  private readonly sets = new Map<SetId, IrSet>();
  // Definitions are written once per (peer object, subject namespace): ten thousand policies
  // from one template repeat the same peers.
  private readonly idOfPeer = new Map<Peer, Map<string, SetId>>();

  constructor(
    private readonly cluster: Cluster,
    private readonly sha256Hex: Sha256Hex = portableSha256Hex,
  ) {}

  private idOf(definition: SetDefinition): { id: SetId; known: boolean } {
    const id = contentId('s', JSON.stringify(definition), this.sha256Hex);
    return { id, known: this.sets.has(id) };
  }

  private cachedId(peer: Peer, subject: PodInfo, tag: string): SetId | undefined {
    return this.idOfPeer.get(peer)?.get(`${tag}@${subject.namespace}`);
  }

  private remember(peer: Peer, subject: PodInfo, tag: string, id: SetId): SetId {
    const byNs = this.idOfPeer.get(peer) ?? this.idOfPeer.set(peer, new Map()).get(peer)!;
    byNs.set(`${tag}@${subject.namespace}`, id);
    return id;
  }

  /** The id of a peer's address set, resolving its members the first time. */
  addresses(definition: SetDefinition, peer: Peer, subject: PodInfo): SetId {
    const cached = this.cachedId(peer, subject, '');
    if (cached !== undefined) return cached;
    const { id, known } = this.idOf(definition);
    if (!known) {
      const { v4, v6 } = addressMembers(this.cluster, peer, subject);
      this.sets.set(id, { kind: 'addresses', definition, v4, v6, hash: contentId('m', JSON.stringify([v4, v6]), this.sha256Hex) });
    }
    return this.remember(peer, subject, '', id);
  }

  /** The id of an egress named port's ports set over a peer. */
  ports(definition: SetDefinition, peer: Peer, m: Extract<PortMatch, { type: 'named' }>, subject: PodInfo): SetId {
    const tag = `${m.name}/${m.protocol ?? ''}`;
    const cached = this.cachedId(peer, subject, tag);
    if (cached !== undefined) return cached;
    const { id, known } = this.idOf(definition);
    if (!known) {
      const elements = portElements(this.cluster, peer, m, subject);
      this.sets.set(id, { kind: 'ports', definition, elements, hash: contentId('m', JSON.stringify(elements), this.sha256Hex) });
    }
    return this.remember(peer, subject, tag, id);
  }

  get(id: SetId): IrSet {
    const set = this.sets.get(id);
    if (!set) throw new Error(`set ${id} was never registered`);
    return set;
  }
}
