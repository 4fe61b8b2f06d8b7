// schemas/k8s/ip.ts reads canonical dotted-decimal IPv4 and plain IPv6 without ip-num (the parse cost of M-sized
// snapshots); every other text goes through ip-num. Held here: for any text, the address, CIDR
// and family it reads are exactly ip-num's, so the fast path changes no verdict, issue or output.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { IPv4, IPv4CidrRange, IPv6, IPv6CidrRange, Validator } from 'ip-num';
import { familyOfText, parseCidr, parseIp } from '../../schemas/k8s/ip.js';
import { assertProperty, propertyRuns } from '../support/property.js';

/**
 * ip-num alone, as schemas/k8s/ip.ts read text before the fast path, except that a zone is never
 * part of a CIDR (Go's net.ParseCIDR), a text ip-num validates but then cannot build is
 * rejected (it used to throw: a 500 for an ipBlock of `fe80::1%eth0/129`), and an IPv6 CIDR with
 * a dotted IPv4 tail is read through ip-num's address parser (its CIDR validator refuses the
 * form Go and the CRDs accept), IPv4-mapped ones refused.
 */
const built = <T>(f: () => T): T | null => {
  try {
    return f();
  } catch {
    return null;
  }
};
const reference = {
  family(text: string) {
    if (text.includes('%')) return null;
    if (Validator.isValidIPv4String(text)[0]) return 4;
    if (Validator.isValidIPv6String(text)[0]) return 6;
    return null;
  },
  ip(text: string) {
    const f = reference.family(text);
    return built(() => (f === 4 ? { family: 4, value: IPv4.fromDecimalDottedString(text).getValue() } : f === 6 ? { family: 6, value: IPv6.fromString(text).getValue() } : null));
  },
  cidr(text: string) {
    const slash = text.indexOf('/');
    if (slash < 0 || !/^\d{1,3}$/.test(text.slice(slash + 1)) || text.includes('%')) return null;
    const [address, bits] = [text.slice(0, slash), Number(text.slice(slash + 1))];
    if (address.includes(':') && address.includes('.')) {
      const ip = reference.ip(address);
      if (ip === null || ip.family !== 6 || bits > 128 || text.slice(slash + 1) !== String(bits) || ip.value >> 32n === 0xffffn) return null;
      const size = 1n << BigInt(128 - bits);
      return { family: 6, lo: ip.value - (ip.value % size), hi: ip.value - (ip.value % size) + size - 1n };
    }
    return built(() => {
      if (Validator.isValidIPv4CidrNotation(text)[0]) {
        const r = IPv4CidrRange.fromCidr(text);
        return { family: 4, lo: r.getFirst().getValue(), hi: r.getLast().getValue() };
      }
      if (Validator.isValidIPv6CidrNotation(text)[0]) {
        const r = IPv6CidrRange.fromCidr(text);
        return { family: 6, lo: r.getFirst().getValue(), hi: r.getLast().getValue() };
      }
      return null;
    });
  },
};

// Octets near every boundary of the canonical form, with leading zeros, signs and spaces.
const octet = fc.oneof(fc.integer({ min: 0, max: 255 }).map(String), fc.constantFrom('00', '01', '010', '099', '255', '256', '300', '-1', '+1', ' 1', '1 ', '', '0x1', '١', '1e1'));
const v4Text = fc.tuple(octet, octet, octet, octet, fc.constantFrom('.', '.', '.', ',', '..')).map(([a, b, c, d, sep]) => [a, b, c, d].join(sep));
const prefix = fc.oneof(fc.integer({ min: 0, max: 40 }).map(String), fc.integer({ min: 0, max: 135 }).map(String), fc.constantFrom('08', '032', '00', '0032', '', ' 8', '8 ', '-1', '+8'));
const group = fc.oneof(fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16)), fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16).padStart(4, '0')), fc.constantFrom('', '0', '00000', 'FFFF', 'Ab', 'g', '1.2.3.4', ' 1'));
const v6Text = fc.oneof(
  fc.array(group, { minLength: 1, maxLength: 10 }).map((gs) => gs.join(':')),
  fc.tuple(fc.array(group, { maxLength: 8 }), fc.array(group, { maxLength: 8 })).map(([a, b]) => `${a.join(':')}::${b.join(':')}`),
  fc.constantFrom('::', '::1', '1::', ':::', ':::1', '1:::2', '::1::', 'fd00::1', 'fd00:0:0:0:0:0:0:1', '::ffff:1.2.3.4', 'fe80::1%eth0', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7::8'),
);
const anyText = fc.oneof(
  v4Text,
  v6Text,
  fc.tuple(fc.oneof(v4Text, v6Text), prefix).map(([a, p]) => `${a}/${p}`),
  fc.stringMatching(/^[0-9.:/a-f %x\n]{0,20}$/),
);

describe('address text read without ip-num', () => {
  it('reads every text exactly as ip-num does: family, address and CIDR range', () => {
    assertProperty(
      fc.property(anyText, (text) => {
        expect(familyOfText(text)).toBe(reference.family(text));
        expect(parseIp(text)).toEqual(reference.ip(text));
        expect(parseCidr(text)).toEqual(reference.cidr(text));
      }),
      { numRuns: propertyRuns(20_000), file: import.meta.url },
    );
  });

  it('masks host bits as ip-num does, at every prefix length', () => {
    for (let p = 0; p <= 32; p++) expect(parseCidr(`203.0.113.77/${p}`)).toEqual(reference.cidr(`203.0.113.77/${p}`));
    expect(parseCidr('255.255.255.255/0')).toEqual({ family: 4, lo: 0n, hi: 4294967295n });
    for (let p = 0; p <= 128; p++) expect(parseCidr(`fd00:1234:5678:9abc:def0:1:ff:77/${p}`)).toEqual(reference.cidr(`fd00:1234:5678:9abc:def0:1:ff:77/${p}`));
  });
});
