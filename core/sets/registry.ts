// The sets of one compile: each definition gets its id once and its members resolved once,
// however many tables use it. Owned by one compile call (no module state).
import type { Cluster } from '../cluster.js';
import { portableSha256Hex, type Sha256Hex } from '../compile/table-id.js';
import { isRelativePeer, peerKey, type Peer, type PortMatch } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { IrSet, PortElement, SetDefinition, SetId } from './ir.js';
import { namedPortDefinition, peerDefinition } from './definitions.js';
import { addressMembers, candidatePods, OwnedAddresses, portElements, type AddressMembers } from './members.js';
import { editAddresses, editElements, type MemberEdit } from './member-edit.js';
import { resolveDefinition, subjectIn } from './resolve.js';
import { addressSet, definitionId, portSet } from './texts.js';

export class SetRegistry {
  private readonly sets = new Map<SetId, IrSet>();
  // Sets whose members nobody asked for yet: a compile from an earlier version names many sets
  // whose members it keeps, and resolving them would cost more than the change.
  private readonly pending = new Map<SetId, () => IrSet>();
  // Ids by what a peer says (policy/model.ts peerKey, plus the subject's namespace for relative
  // peers): ten thousand policies from one template repeat the same peers, and each set's
  // definition is written and hashed once.
  private readonly idOfPeer = new Map<string, SetId>();
  private readonly peerKeys = new WeakMap<Peer, string>();
  // The same, by the peer object, for peers whose set does not depend on the subject: a policy's
  // peer recurs in the table of every group the policy selects (4·10⁴ lookups at M), and its
  // key need not be written and hashed again each time.
  private readonly addressIdOf = new WeakMap<Peer, SetId>();
  // And of its named-port sets, by the port match (a rule's peers and ports recur together).
  private readonly portsIdOf = new WeakMap<Peer, WeakMap<PortMatch, SetId>>();
  private readonly owned: OwnedAddresses;
  // Candidate pods by peer (with the subject's namespace for relative peers): a peer's address
  // set and its named-port sets draw from the same pods (M: 7,264 sets over 4,660 peers).
  private readonly candidatesOfPeer = new Map<string, Int32Array>();

  constructor(
    private readonly cluster: Cluster,
    private readonly sha256Hex: Sha256Hex = portableSha256Hex,
  ) {
    this.owned = new OwnedAddresses(cluster);
  }

  private idOf(definition: SetDefinition): { id: SetId; known: boolean } {
    const id = definitionId(definition, this.sha256Hex);
    return { id, known: this.has(id) };
  }

  private keyOf(peer: Peer, subject: PodInfo, tag: string): string {
    let key = this.peerKeys.get(peer);
    if (key === undefined) this.peerKeys.set(peer, (key = peerKey(peer)));
    return isRelativePeer(peer) ? `${key}|${tag}@${subject.namespace}` : `${key}|${tag}`;
  }

  private candidates(peer: Peer, subject: PodInfo): Int32Array {
    if (peer.type !== 'pods') return candidatePods(this.cluster, peer, subject);
    const key = this.keyOf(peer, subject, '');
    let pods = this.candidatesOfPeer.get(key);
    if (!pods) this.candidatesOfPeer.set(key, (pods = candidatePods(this.cluster, peer, subject)));
    return pods;
  }

  /** The id of a peer's address set (null for any address), resolving its members the first time. */
  addresses(peer: Peer, subject: PodInfo): SetId | null {
    if (peer.type === 'any') return null;
    const relative = isRelativePeer(peer);
    if (!relative) {
      const byPeer = this.addressIdOf.get(peer);
      if (byPeer !== undefined) return byPeer;
    }
    const key = this.keyOf(peer, subject, '');
    let id = this.idOfPeer.get(key);
    if (id === undefined) {
      const definition = peerDefinition(this.cluster, peer, subject)!;
      const found = this.idOf(definition);
      id = found.id;
      if (!found.known) this.pending.set(id, () => this.members(definition, peer, null, subject));
      this.idOfPeer.set(key, id);
    }
    if (!relative) this.addressIdOf.set(peer, id);
    return id;
  }

  /** The id of an egress named port's ports set over a peer. */
  ports(peer: Peer, m: Extract<PortMatch, { type: 'named' }>, subject: PodInfo): SetId {
    const relative = isRelativePeer(peer);
    const byPeer = relative ? undefined : (this.portsIdOf.get(peer) ?? this.portsIdOf.set(peer, new WeakMap()).get(peer)!);
    const known = byPeer?.get(m);
    if (known !== undefined) return known;
    const key = this.keyOf(peer, subject, `${JSON.stringify(m.name)}/${m.protocol ?? ''}`);
    let id = this.idOfPeer.get(key);
    if (id === undefined) {
      const definition = namedPortDefinition(peerDefinition(this.cluster, peer, subject), m);
      const found = this.idOf(definition);
      id = found.id;
      if (!found.known) this.pending.set(id, () => this.members(definition, peer, m, subject));
      this.idOfPeer.set(key, id);
    }
    byPeer?.set(m, id);
    return id;
  }

  /**
   * A set known by its id and definition alone (from an earlier version): its members in this
   * cluster, resolved from the definition (resolve.ts). Null when it is relative to a namespace
   * that has no pods left, so no table can use it.
   */
  fromDefinition(id: SetId, definition: SetDefinition): IrSet | null {
    if (this.has(id)) return this.get(id);
    const { peer, port, subjectNamespace } = resolveDefinition(this.cluster, definition);
    const subject = subjectIn(this.cluster, subjectNamespace);
    if (!subject) return null;
    const set = this.members(definition, peer, port, subject);
    this.sets.set(id, set);
    return set;
  }

  has(id: SetId): boolean {
    return this.sets.has(id) || this.pending.has(id);
  }

  /**
   * A set of the earlier version with its members edited (member-edit.ts) instead of resolved
   * again: the earlier set itself when the edit cancels out, null when it does not fit the
   * earlier members (then the caller resolves the set again).
   */
  edited(id: SetId, earlier: IrSet, edit: MemberEdit): IrSet | null {
    if (this.sets.has(id)) return this.get(id);
    let set: IrSet | null = null;
    if (edit.kind === 'addresses' && earlier.kind === 'addresses') {
      const m = editAddresses(earlier, edit.leave, edit.enter);
      if (m) set = m.v4 === earlier.v4 && m.v6 === earlier.v6 ? earlier : this.addressSet(earlier.definition, m);
    } else if (edit.kind === 'ports' && earlier.kind === 'ports') {
      const elements = editElements(earlier.elements, edit.leave, edit.enter);
      if (elements) set = elements === earlier.elements ? earlier : this.portSet(earlier.definition, elements);
    }
    if (set) {
      this.sets.set(id, set);
      this.pending.delete(id);
    }
    return set;
  }

  /** Who is in a set today. */
  private members(definition: SetDefinition, peer: Peer, port: Extract<PortMatch, { type: 'named' }> | null, subject: PodInfo): IrSet {
    if (port !== null) return this.portSet(definition, portElements(this.cluster, this.owned, peer, port, this.candidates(peer, subject)));
    return this.addressSet(definition, addressMembers(this.cluster, this.owned, peer, this.candidates(peer, subject)));
  }

  // A set with the members' own hash, however its members were found.
  private addressSet(definition: SetDefinition, { v4, v6 }: AddressMembers): IrSet {
    return addressSet(definition, v4, v6, this.sha256Hex);
  }

  private portSet(definition: SetDefinition, elements: readonly PortElement[]): IrSet {
    return portSet(definition, elements, this.sha256Hex);
  }

  get(id: SetId): IrSet {
    let set = this.sets.get(id);
    if (!set) {
      const resolve = this.pending.get(id);
      if (!resolve) throw new Error(`set ${id} was never registered`);
      this.sets.set(id, (set = resolve()));
      this.pending.delete(id);
    }
    return set;
  }
}
