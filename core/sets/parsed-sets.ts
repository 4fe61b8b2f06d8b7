// A set's members as numbers, for the code that evaluates the set form (its reference reading,
// the regions the OpenStack renderer writes): the set form keeps text (its JSON is the format
// ir), and each set is read into numbers once per set object, not once per table or node naming
// it. Sets are immutable and shared by every table and node that names them.
import { parseCidrBlock, parseIp, type Cidr, type IpAddr } from '../net/ip.js';
import type { AddressSet, PortSet } from './ir.js';

const blocksOfSets = new WeakMap<AddressSet, readonly Cidr[]>();
const addressesOfSets = new WeakMap<PortSet, readonly IpAddr[]>();

/** A member as a block: a CIDR, or an address as its host block. */
function memberBlock(text: string): Cidr {
  const ip = text.includes('/') ? null : parseIp(text);
  const block = ip ? { family: ip.family, lo: ip.value, hi: ip.value, prefix: ip.family === 4 ? 32 : 128 } : parseCidrBlock(text);
  if (!block) throw new Error(`set member "${text}" is not an address or a CIDR`);
  return block;
}

/** The members of an address set, v4 then v6, as blocks. */
export function memberBlocks(set: AddressSet): readonly Cidr[] {
  let blocks = blocksOfSets.get(set);
  if (blocks === undefined) blocksOfSets.set(set, (blocks = [...set.v4, ...set.v6].map(memberBlock)));
  return blocks;
}

/** The address of each element of a ports set, in element order. */
export function elementAddresses(set: PortSet): readonly IpAddr[] {
  let addresses = addressesOfSets.get(set);
  if (addresses === undefined) {
    addresses = set.elements.map(([text]) => {
      const ip = parseIp(text);
      if (!ip) throw new Error(`ports set element address "${text}" is not an address`);
      return ip;
    });
    addressesOfSets.set(set, addresses);
  }
  return addresses;
}
