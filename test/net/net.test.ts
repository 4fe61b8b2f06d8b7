// Address and CIDR arithmetic against brute force and independent oracles.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cidrCount, formatIp, parseCidrBlock, parseCidr, parseFormattedIp, parseIp, rangeContains, rangeToBlocks, rangeToCidrs, type IpRange } from '../../core/net/ip.js';
import { assertProperty } from '../support/property.js';

const v4 = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');

describe('parseCidr', () => {
  it('masks host bits like net.ParseCIDR and bounds the block', () => {
    assertProperty(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 32 }), (addr, prefix) => {
        const r = parseCidr(`${v4(addr)}/${prefix}`)!;
        const size = 2 ** (32 - prefix);
        const lo = Math.floor(addr / size) * size;
        expect(r).toEqual({ family: 4, lo: BigInt(lo), hi: BigInt(lo + size - 1) });
      }),
      { file: import.meta.url },
    );
  });

  it('parses IPv6 blocks', () => {
    expect(parseCidr('fd00::1/64')).toEqual({ family: 6, lo: 0xfd00n << 112n, hi: (0xfd00n << 112n) + (1n << 64n) - 1n });
    expect(parseCidr('::/0')).toEqual({ family: 6, lo: 0n, hi: (1n << 128n) - 1n });
  });

  it('reads IPv6 with a dotted IPv4 tail (NAT64), as Go and the CRDs do; refuses IPv4-mapped ones', () => {
    expect(parseCidr('64:ff9b::192.0.2.1/128')).toEqual({ family: 6, lo: 0x64ff9b0000000000000000c0000201n, hi: 0x64ff9b0000000000000000c0000201n });
    expect(parseCidr('64:ff9b::192.0.2.77/120')).toEqual({ family: 6, lo: 0x64ff9b0000000000000000c0000200n, hi: 0x64ff9b0000000000000000c00002ffn });
    expect(parseCidr('::1.2.3.4/128')).toEqual({ family: 6, lo: 0x01020304n, hi: 0x01020304n });
    for (const bad of ['::ffff:10.0.0.0/104', '::ffff:1.2.3.4/128', '64:ff9b::192.0.2.1/129', '64:ff9b::192.0.2.1/064', '64:ff9b::300.0.2.1/128', '64:ff9b::192.0.2/120', '1.2.3.4::/96']) expect(parseCidr(bad), bad).toBeNull();
  });

  it('rejects what is not a CIDR', () => {
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0/8', '010.0.0.0/8', 'fd00::/129', 'x/8', '10.0.0.0/-1', '10.0.0.0/ 8', '']) expect(parseCidr(bad), bad).toBeNull();
  });
});

describe('parseFormattedIp', () => {
  it('reads back what formatIp prints, both families', () => {
    const v6 = fc.array(fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 0xffffn })), { minLength: 8, maxLength: 8 }).map((gs) => gs.reduce((acc, g) => (acc << 16n) | g, 0n));
    assertProperty(
      fc.property(fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }).map((value) => ({ family: 4 as const, value })), v6.map((value) => ({ family: 6 as const, value }))), (ip) => {
        expect(parseFormattedIp(formatIp(ip.family, ip.value))).toEqual(ip);
      }),
      { file: import.meta.url },
    );
  });
});

describe('parseCidrBlock', () => {
  const v6 = fc.array(fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 0xffffn })), { minLength: 8, maxLength: 8 }).map((gs) => gs.reduce((acc, g) => (acc << 16n) | g, 0n));
  const ip = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }).map((value) => ({ family: 4 as const, value })), v6.map((value) => ({ family: 6 as const, value })));

  it("is parseCidr's range with the prefix length written, on formatIp text (host bits included) and any other", () => {
    assertProperty(
      fc.property(ip, fc.integer({ min: 0, max: 130 }), (a, prefix) => {
        const cidr = `${formatIp(a.family, a.value)}/${prefix}`;
        const range = parseCidr(cidr);
        expect(parseCidrBlock(cidr)).toEqual(range && { ...range, prefix });
      }),
      { file: import.meta.url },
    );
    expect(parseCidrBlock('FD00::/8')).toEqual({ family: 6, lo: 0xfdn << 120n, hi: (0xfen << 120n) - 1n, prefix: 8 });
    for (const text of ['10.0.0.1', '1.2.3.4/33', '010.0.0.1/8', 'x/8', '']) expect(parseCidrBlock(text), text).toBeNull();
  });
});

describe('formatIp', () => {
  it('round-trips IPv4', () => {
    assertProperty(fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => { expect(formatIp(4, parseIp(v4(n))!.value)).toBe(v4(n)); }), { file: import.meta.url });
  });

  it('writes IPv6 as the WHATWG URL parser canonicalises it (RFC 5952 compression)', () => {
    const group = fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
    assertProperty(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (groups) => {
        const text = groups.map((g) => g.toString(16)).join(':');
        const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
        const oracle = new URL(`http://[${text}]/`).hostname.slice(1, -1);
        expect(formatIp(6, value)).toBe(oracle);
        expect(parseIp(oracle)!.value).toBe(value);
      }),
      { file: import.meta.url },
    );
  });
});

describe('rangeToCidrs', () => {
  it('covers exactly the range with disjoint aligned blocks, no more blocks than 2·bits', () => {
    const base = 0x0a000000; // 10.0.0.0: enumerate inside a /20 so brute force stays cheap
    assertProperty(
      fc.property(fc.integer({ min: 0, max: 4095 }), fc.integer({ min: 0, max: 4095 }), (a, b) => {
        const lo = base + Math.min(a, b);
        const hi = base + Math.max(a, b);
        const blocks = rangeToCidrs({ family: 4, lo: BigInt(lo), hi: BigInt(hi) }).map((c) => parseCidr(c)!);
        let next = BigInt(lo);
        for (const blk of blocks) {
          expect(blk.lo).toBe(next);
          expect((blk.lo & (blk.hi - blk.lo)) === 0n).toBe(true);
          next = blk.hi + 1n;
        }
        expect(next).toBe(BigInt(hi) + 1n);
        expect(blocks.length).toBeLessThanOrEqual(2 * 32);
      }),
      { file: import.meta.url },
    );
  });

  it('covers any IPv4 range with the fewest aligned blocks (whole space, high addresses)', () => {
    const chainCovers = (lo: bigint, hi: bigint) => {
      const blocks = rangeToCidrs({ family: 4, lo, hi }).map((c) => parseCidr(c)!);
      let next = lo;
      for (const blk of blocks) {
        expect(blk.lo).toBe(next);
        // Maximal: the block could not be doubled without leaving alignment or the range.
        const size = blk.hi - blk.lo + 1n;
        expect((blk.lo & (2n * size - 1n)) !== 0n || blk.lo + 2n * size - 1n > hi || size === 1n << 32n).toBe(true);
        next = blk.hi + 1n;
      }
      expect(next).toBe(hi + 1n);
    };
    assertProperty(fc.property(fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }), (a, b) => chainCovers(a < b ? a : b, a < b ? b : a)), { file: import.meta.url });
    expect(rangeToCidrs({ family: 4, lo: 0n, hi: (1n << 32n) - 1n })).toEqual(['0.0.0.0/0']);
    expect(rangeToCidrs({ family: 4, lo: (1n << 32n) - 1n, hi: (1n << 32n) - 1n })).toEqual(['255.255.255.255/32']);
    expect(rangeToCidrs({ family: 4, lo: 1n << 31n, hi: (1n << 32n) - 1n })).toEqual(['128.0.0.0/1']);
  });

  it('cidrCount counts what rangeToCidrs returns', () => {
    const bound = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
    for (const [family, bits] of [[4, 32], [6, 128]] as const) {
      assertProperty(fc.property(bound(bits), bound(bits), (a, b) => {
        const r = { family, lo: a < b ? a : b, hi: a < b ? b : a };
        expect(cidrCount(r)).toBe(rangeToCidrs(r).length);
      }), { file: import.meta.url });
    }
  });

  it('rangeToBlocks: the blocks of rangeToCidrs as numbers, both families', () => {
    const bound = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
    for (const [family, bits] of [[4, 32], [6, 128]] as const) {
      assertProperty(fc.property(bound(bits), bound(bits), (a, b) => {
        const r = { family, lo: a < b ? a : b, hi: a < b ? b : a };
        expect(rangeToBlocks(r)).toEqual(rangeToCidrs(r).map((c) => ({ ...parseCidr(c)!, prefix: Number(c.split('/')[1]) })));
      }), { file: import.meta.url });
    }
  });

  it('splits the Kuryr example the way the seed says', () => {
    // kuryr-network-policy-spec: "1.1.1.0/24 except 1.1.1.0/26" → 1.1.1.64/26 and 1.1.1.128/25.
    expect(rangeToCidrs({ family: 4, lo: parseIp('1.1.1.64')!.value, hi: parseIp('1.1.1.255')!.value })).toEqual(['1.1.1.64/26', '1.1.1.128/25']);
  });

  it('handles the whole IPv6 space', () => {
    expect(rangeToCidrs({ family: 6, lo: 0n, hi: (1n << 128n) - 1n })).toEqual(['::/0']);
  });
});

describe('cidr minus excepts (ipBlock) membership', () => {
  it('equals brute force with several overlapping excepts', () => {
    const prefix = fc.integer({ min: 24, max: 32 });
    const block = fc.tuple(fc.integer({ min: 0, max: 255 }), prefix).map(([host, p]) => parseCidr(`192.168.7.${host}/${p}`)!);
    assertProperty(
      fc.property(fc.integer({ min: 20, max: 24 }), fc.array(block, { maxLength: 5 }), fc.integer({ min: 0, max: 1023 }), (cidrPrefix, excepts, probe) => {
        const cidr = parseCidr(`192.168.4.0/${cidrPrefix}`)!;
        const ip = { family: 4 as const, value: parseIp('192.168.4.0')!.value + BigInt(probe) };
        const inside = (r: IpRange) => r.lo <= ip.value && ip.value <= r.hi;
        const expected = inside(cidr) && !excepts.some(inside);
        expect(rangeContains(cidr, ip) && !excepts.some((e) => rangeContains(e, ip))).toBe(expected);
      }),
      { file: import.meta.url },
    );
  });
});
