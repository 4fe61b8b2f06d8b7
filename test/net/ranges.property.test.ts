// The address algebra matching, the lints and the previews stand on, against plain point sets on
// a small space: `subtract` (ipBlock less except); a rule's CIDR peers as one set
// (policy/rule-addresses.ts), match.ts rulePeersMatch reading it and ruleSetPeers (the set
// form's one CIDR peer per rule), against peerMatches peer by peer; and the address classes of core/classes/addresses.ts, which merge every interval the
// same rules contain, however far apart; those classes refined by more sets (refinedClasses)
// equal the classes of all the sets at once; elementary intervals (IPv4's sorted as doubles)
// against their definition.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addressSets, addressSlots, externalRepresentatives, refinedClasses } from '../../core/classes/addresses.js';
import { elementaryIntervals } from '../../core/net/intervals.js';
import { peerMatches, rulePeersMatch } from '../../core/evaluate/match.js';
import type { Cluster } from '../../core/cluster.js';
import type { Family, IpRange } from '../../core/net/ip.js';
import { normalise, subtract } from '../../core/net/ranges.js';
import type { Peer, Rule } from '../../core/policy/model.js';
import { ruleAddresses, ruleSetPeers } from '../../core/policy/rule-addresses.js';
import { ipKey } from '../../core/snapshot/cluster.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(1000);
const SPACE = 64;
const POINTS = [...Array.from({ length: SPACE + 8 }, (_, v) => BigInt(v)), 2n ** 31n, 2n ** 32n - 1n];

const rangeArb = fc.record({ family: fc.constantFrom<Family>(4, 6), a: fc.nat(SPACE), b: fc.nat(SPACE) }).map(({ family, a, b }): IpRange => ({ family, lo: BigInt(Math.min(a, b)), hi: BigInt(Math.max(a, b)) }));
const rangesArb = fc.array(rangeArb, { maxLength: 6 });
type CidrPeer = Extract<Peer, { type: 'cidrs' }>;
const peerArb = fc.record({ ranges: rangesArb, except: rangesArb }).map(({ ranges, except }): CidrPeer => ({ type: 'cidrs', ranges, except }));
/** A rule of CIDR peers (and sometimes a `none` peer, which matches nothing); only `peers` is read here. */
const ruleArb = fc.tuple(fc.array(peerArb, { maxLength: 4 }), fc.boolean()).map(([peers, none]) => ({ peers: none ? [...peers, { type: 'none' }] : peers }) as unknown as Rule);
const scope = {} as Parameters<typeof peerMatches>[0];

const inRanges = (list: readonly IpRange[], family: Family, v: bigint) => list.some((r) => r.family === family && r.lo <= v && v <= r.hi);
const inPeer = (p: CidrPeer, family: Family, v: bigint) => inRanges(p.ranges, family, v) && !inRanges(p.except, family, v);

describe('address ranges (core/net/ranges.ts)', () => {
  it(`subtract is a minus b, sorted, disjoint and merged, on ${RUNS} random pairs`, () => {
    assertProperty(
      fc.property(rangesArb, rangesArb, (a, b) => {
        const out = subtract(a, b);
        for (const family of [4, 6] as const) {
          for (const v of POINTS) expect(inRanges(out, family, v), `IPv${family} ${v}`).toBe(inRanges(a, family, v) && !inRanges(b, family, v));
        }
        expect(normalise(out)).toEqual(out);
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});

describe("a rule's CIDR peers as one set (policy/rule-addresses.ts, match.ts rulePeersMatch)", () => {
  it(`match an address exactly when one of the peers does, on ${RUNS} random rules`, () => {
    assertProperty(
      fc.property(ruleArb, (rule) => {
        const { any, ranges } = ruleAddresses(rule);
        expect(any).toBe(rule.peers.some((p) => p.type === 'cidrs'));
        expect(normalise(ranges)).toEqual(ranges);
        for (const family of [4, 6] as const) {
          for (const value of POINTS) {
            const ip = { family, value };
            const expected = rule.peers.some((p) => peerMatches(scope, p, { kind: 'external', ip }, null as never));
            expect(rulePeersMatch(scope, rule, { kind: 'external', ip }, null as never), `IPv${family} ${value}`).toBe(expected);
          }
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it(`the set form's peers (ruleSetPeers) match exactly what the rule's peers do, with at most one CIDR peer, on ${RUNS} random rules`, () => {
    assertProperty(
      fc.property(ruleArb, (rule) => {
        const merged = ruleSetPeers(rule);
        const cidrs = rule.peers.filter((p) => p.type === 'cidrs').length;
        expect(merged.filter((p) => p.type === 'cidrs')).toHaveLength(Math.min(cidrs, 1));
        expect(merged.filter((p) => p.type !== 'cidrs')).toEqual(rule.peers.filter((p) => p.type !== 'cidrs'));
        for (const family of [4, 6] as const) {
          for (const value of POINTS) {
            const at = { kind: 'external', ip: { family, value } } as const;
            const expected = rule.peers.some((p) => peerMatches(scope, p, at, null as never));
            expect(merged.some((p) => peerMatches(scope, p, at, null as never)), `IPv${family} ${value}`).toBe(expected);
          }
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});

describe('address classes (core/classes/addresses.ts)', () => {
  it(`two addresses share a class exactly when every rule's CIDR peers contain both or neither, on ${RUNS} random rule lists`, () => {
    assertProperty(
      fc.property(fc.array(ruleArb, { maxLength: 5 }), (rules) => {
        const { slot } = addressSlots(addressSets(rules).sets);
        const inRule = (r: Rule, family: Family, v: bigint) => r.peers.some((p) => p.type === 'cidrs' && inPeer(p, family, v));
        for (const family of [4, 6] as const) {
          const byInside = new Map<string, string>();
          const bySlot = new Map<string, string>();
          for (const value of POINTS) {
            const inside = rules.map((r) => (inRule(r, family, value) ? 1 : 0)).join('');
            const s = slot({ family, value });
            expect(s.startsWith(`${family}:`)).toBe(true);
            // A function both ways: one class per membership vector, one vector per class.
            expect(byInside.get(inside) ?? s, `IPv${family} ${value}: peers ${inside}`).toBe(s);
            expect(bySlot.get(s) ?? inside, `IPv${family} ${value}: class ${s}`).toBe(inside);
            byInside.set(inside, s);
            bySlot.set(s, inside);
          }
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it(`external representatives: one per class, unowned, inside its class, its intervals exactly the class, on ${RUNS} random cases`, () => {
    assertProperty(
      fc.property(fc.array(ruleArb, { maxLength: 5 }), fc.uniqueArray(fc.nat(SPACE), { maxLength: 20 }), (rules, owned) => {
        const ipOwners = new Map(owned.map((v) => [ipKey({ family: 4, value: BigInt(v) }), { kind: 'pod' }]));
        const cluster = { ipOwners } as unknown as Cluster;
        const slots = addressSlots(addressSets(rules).sets);
        const reps = externalRepresentatives([cluster], slots);
        const seen = new Set<string>();
        for (const { family, intervals, ip } of reps) {
          const s = slots.slot(ip);
          expect(seen.has(s), `class ${s} twice`).toBe(false);
          seen.add(s);
          expect(ip.family).toBe(family);
          expect(ipOwners.has(ipKey(ip))).toBe(false);
          expect(intervals.some((iv) => iv.lo <= ip.value && ip.value <= iv.hi)).toBe(true);
          for (const value of POINTS) {
            const inClass = slots.slot({ family, value }) === s;
            expect(intervals.some((iv) => iv.lo <= value && value <= iv.hi), `IPv${family} ${value} and class ${s}`).toBe(inClass);
          }
        }
        // Nothing owns IPv6 here, so every IPv6 class has its representative.
        for (const value of POINTS) expect(seen.has(slots.slot({ family: 6, value })), `IPv6 ${value}`).toBe(true);
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
  it(`classes refined by more sets equal the classes of all of them at once, on ${RUNS} random pairs of set lists`, () => {
    const setsArb = fc.array(rangesArb.map((r) => normalise(r)), { maxLength: 4 });
    assertProperty(
      fc.property(setsArb, setsArb, setsArb, (a, b, c) => {
        const whole = addressSlots([...a, ...b, ...c]);
        // Refined once and twice (a base refined again, as a table's small sets refine the shared ones).
        for (const refined of [refinedClasses(addressSlots(a), [...b, ...c]), refinedClasses(refinedClasses(addressSlots(a), b), c)]) {
          for (const family of [4, 6] as const) {
            expect(refined.intervals[family]).toEqual(whole.intervals[family]);
            // The same partition: class numbers related one to one.
            const there = new Map<number, number>();
            const back = new Map<number, number>();
            whole.classOf[family].forEach((w, i) => {
              const r = refined.classOf[family][i]!;
              expect(there.get(r) ?? w, `IPv${family} interval ${i}`).toBe(w);
              expect(back.get(w) ?? r, `IPv${family} interval ${i}`).toBe(r);
              there.set(r, w);
              back.set(w, r);
            });
          }
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it(`elementary intervals cut the space at every range boundary and nowhere else, on ${RUNS} random range lists`, () => {
    const edge = fc.constantFrom(0n, 1n, 2n ** 32n - 2n, 2n ** 32n - 1n, 2n ** 128n - 1n);
    const valueArb = fc.oneof(fc.nat(SPACE).map(BigInt), edge, fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }));
    const anyRangeArb = fc.record({ family: fc.constantFrom<Family>(4, 6), a: valueArb, b: valueArb }).map(({ family, a, b }): IpRange => {
      const max = family === 4 ? 2n ** 32n - 1n : 2n ** 128n - 1n;
      const [lo, hi] = [a < b ? a : b, a < b ? b : a].map((v) => (v > max ? max : v)) as [bigint, bigint];
      return { family, lo, hi };
    });
    assertProperty(
      fc.property(fc.array(anyRangeArb, { maxLength: 12 }), (ranges) => {
        for (const family of [4, 6] as const) {
          const max = family === 4 ? 2n ** 32n - 1n : 2n ** 128n - 1n;
          const cuts = new Set<bigint>([0n]);
          for (const r of ranges) if (r.family === family) for (const c of [r.lo, r.hi + 1n]) if (c <= max) cuts.add(c);
          const starts = [...cuts].sort((x, y) => (x < y ? -1 : 1));
          expect(elementaryIntervals(family, ranges)).toEqual(starts.map((lo, i) => ({ lo, hi: i + 1 < starts.length ? starts[i + 1]! - 1n : max })));
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});
