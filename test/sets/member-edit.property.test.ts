// Editing a set's members (core/sets/member-edit.ts) gives what printing the edited members from
// scratch gives (members.ts): for address sets, runs of consecutive addresses crossing CIDR
// alignment boundaries, adjacent runs, runs joined and split by what enters and leaves, in both
// families; for ports sets, elements in order. An edit that does not fit (an address leaving
// that is not there, one entering that is) is refused, never applied.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIp, type Family, type IpAddr } from '../../core/net/ip.js';
import { editAddresses, editCidrs, editElements, sortedElements, type KeyedElement } from '../../core/sets/member-edit.js';
import { ownedAddress, podCidrs } from '../../core/sets/members.js';
import type { Protocol } from '../../core/policy/model.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(300);
const MAX: Record<Family, bigint> = { 4: 2n ** 32n - 1n, 6: 2n ** 128n - 1n };

/** Addresses as members.ts prints them from scratch. */
function printed(family: Family, values: Iterable<bigint>): string[] {
  return podCidrs(family, [...values].map((value) => ownedAddress({ family, value })));
}

/**
 * Addresses around an aligned value (a multiple of 2^k, or either end of the family's space):
 * runs of up to 70 addresses cross blocks of every size around it, and runs drawn close to
 * each other touch or overlap (one longer run).
 */
const addressesArb = (family: Family) =>
  fc
    .record({
      k: fc.integer({ min: 0, max: family === 4 ? 32 : 128 }),
      m: fc.integer({ min: 0, max: 3 }),
      runs: fc.array(fc.record({ at: fc.integer({ min: -120, max: 120 }), length: fc.integer({ min: 1, max: 70 }) }), { maxLength: 8 }),
      singles: fc.array(fc.integer({ min: -150, max: 150 }), { maxLength: 10 }),
    })
    .map(({ k, m, runs, singles }) => {
      const pivot = (BigInt(m) << BigInt(k)) & MAX[family];
      const inSpace = (v: bigint) => v >= 0n && v <= MAX[family];
      const members = new Set<bigint>();
      for (const r of runs) for (let i = 0; i < r.length; i++) if (inSpace(pivot + BigInt(r.at + i))) members.add(pivot + BigInt(r.at + i));
      for (const s of singles) if (inSpace(pivot + BigInt(s))) members.add(pivot + BigInt(s));
      // Candidates to enter: the window around the members, ends included.
      const window: bigint[] = [];
      for (let i = -160; i <= 200; i++) if (inSpace(pivot + BigInt(i))) window.push(pivot + BigInt(i));
      return { family, members: [...members], window };
    });

/** Members, a subset leaving, and addresses entering: new ones or ones leaving (an address moving between pods). */
const editArb = (family: Family) =>
  addressesArb(family).chain(({ members, window }) =>
    fc.record({ leave: fc.subarray(members), fresh: fc.subarray(window, { maxLength: 80 }) }).chain(({ leave, fresh }) => {
      const staying = new Set(members.filter((v) => !leave.includes(v)));
      return fc.subarray(leave).map((back) => ({ family, members, leave, enter: [...new Set([...fresh.filter((v) => !staying.has(v)), ...back])] }));
    }),
  );

describe('address members edited', () => {
  for (const family of [4, 6] as const) {
    it(`equal the edited addresses printed from scratch, IPv${family} (${RUNS} random edits)`, () => {
      assertProperty(
        fc.property(editArb(family), ({ members, leave, enter }) => {
          const after = new Set(members);
          for (const v of leave) after.delete(v);
          for (const v of enter) after.add(v);
          const cidrs = printed(family, members);
          const edited = editCidrs(cidrs, family, leave, enter);
          expect(edited).toEqual(printed(family, after));
          // What leaves and comes back changes nothing: the list itself is kept.
          if (leave.every((v) => enter.includes(v)) && enter.every((v) => leave.includes(v))) expect(edited).toBe(cidrs);
        }),
        { numRuns: RUNS, file: import.meta.url },
      );
    });

    it(`refuse an edit that does not fit the members, IPv${family} (${RUNS} random edits)`, () => {
      assertProperty(
        fc.property(addressesArb(family), fc.nat(), fc.boolean(), ({ members, window }, pick, leaving) => {
          const held = new Set(members);
          const cidrs = printed(family, members);
          if (leaving) {
            // An address leaving that no pod of the set held.
            const absent = window.filter((v) => !held.has(v));
            if (absent.length > 0) expect(editCidrs(cidrs, family, [absent[pick % absent.length]!], [])).toBeNull();
          } else if (members.length > 0) {
            // An address entering that another member holds.
            expect(editCidrs(cidrs, family, [], [members[pick % members.length]!])).toBeNull();
          }
        }),
        { numRuns: RUNS, file: import.meta.url },
      );
    });
  }

  it(`edit both families at once (${RUNS} random edits)`, () => {
    assertProperty(
      fc.property(editArb(4), editArb(6), (a, b) => {
        const ips = (family: Family, values: readonly bigint[]): IpAddr[] => values.map((value) => ({ family, value }));
        const edited = editAddresses({ v4: printed(4, a.members), v6: printed(6, b.members) }, [...ips(6, b.leave), ...ips(4, a.leave)], [...ips(4, a.enter), ...ips(6, b.enter)]);
        const after = (e: { members: bigint[]; leave: bigint[]; enter: bigint[] }) => [...e.members.filter((v) => !e.leave.includes(v)), ...e.enter];
        expect(edited).toEqual({ v4: printed(4, new Set(after(a))), v6: printed(6, new Set(after(b))) });
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});

// Elements over a few addresses of both families (close values, and IPv6 texts of every
// compression), protocols and ports: orders by family, then value, then protocol, then port.
const addresses: IpAddr[] = [
  ...[0n, 1n, 9n, 10n, 255n, 256n, 2n ** 32n - 1n].map((value) => ({ family: 4 as const, value })),
  ...[0n, 1n, 2n ** 16n, 2n ** 64n, 2n ** 112n + 1n, 2n ** 128n - 1n].map((value) => ({ family: 6 as const, value })),
];
const elementArb = fc.record({ a: fc.nat(addresses.length - 1), protocol: fc.constantFrom<Protocol>('TCP', 'UDP', 'SCTP'), port: fc.constantFrom(53, 80, 443, 8080) }).map(({ a, protocol, port }): KeyedElement => {
  const ip = addresses[a]!;
  return { family: ip.family, value: ip.value, element: [formatIp(ip.family, ip.value), protocol, port] };
});
const key = (k: KeyedElement) => k.element.join('|');

describe('port elements edited', () => {
  it(`equal the edited elements sorted from scratch (${RUNS} random edits)`, () => {
    assertProperty(
      fc.property(
        fc.uniqueArray(elementArb, { selector: key, maxLength: 40 }).chain((members) =>
          fc.record({ members: fc.constant(members), leave: fc.subarray(members), fresh: fc.array(elementArb, { maxLength: 12 }) }).chain(({ members, leave, fresh }) => {
            const staying = new Set(members.filter((m) => !leave.includes(m)).map(key));
            // Repeats allowed: a pod may name one port twice.
            return fc.subarray(leave).map((back) => ({ members, leave: [...leave, ...leave.slice(0, 1)], enter: [...fresh.filter((e) => !staying.has(key(e))), ...back, ...fresh.slice(0, 1).filter((e) => !staying.has(key(e)))] }));
          }),
        ),
        ({ members, leave, enter }) => {
          const gone = new Set(leave.map(key));
          const expected = sortedElements([...members.filter((m) => !gone.has(key(m))), ...enter]);
          const elements = sortedElements([...members]);
          expect(editElements(elements, leave, enter)).toEqual(expected);
        },
      ),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it(`refuse an edit that does not fit the elements (${RUNS} random edits)`, () => {
    assertProperty(
      fc.property(fc.uniqueArray(elementArb, { selector: key, maxLength: 40 }), elementArb, (members, e) => {
        const elements = sortedElements([...members]);
        const held = members.some((m) => key(m) === key(e));
        expect(editElements(elements, held ? [] : [e], held ? [e] : [])).toBeNull();
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});
