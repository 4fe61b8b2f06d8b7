// Records keyed by names a client chose (node names; anything from a snapshot). A node may be
// named `constructor`, `toString` or `__proto__`: in a plain object `nodes[name]` would read
// Object.prototype's member, `name in nodes` would be true for a node that is not there, and
// `nodes['__proto__'] = x` would replace the prototype instead of adding an entry. Records built
// here have no prototype, and lookups read own entries only (a record that went through JSON or
// structuredClone has Object.prototype again).

/** An empty record without a prototype: every key, `__proto__` included, is an entry. */
export const nameRecord = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** The entry of `key` in `record`, never an inherited member. */
export const own = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined => (Object.hasOwn(record, key) ? record[key] : undefined);
