// JSON.stringify of a string, without a call into JSON for the strings the compiled forms and
// stores write by the million (ids, names, labels, addresses): printable ASCII without '"' and
// '\\' is quoted as it is; anything else goes to JSON.stringify.

export function jsonString(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(s);
  }
  return `"${s}"`;
}
