// The marker the reference node agent writes for the version it applied, as the tests expect it
// independently of the agent's own code: the first 15 characters of the ETag's hash (15 is the
// longest string an nftables `ifname` element holds), whether the tag is weak (an answer that
// came gzipped) or strong.
export const markerOf = (etag: string, backend: 'nftables' | 'iptables'): string => {
  const m = new RegExp(`^(?:W/)?"([0-9a-z]{15})[0-9a-z]*\\.${backend}"$`).exec(etag);
  if (!m) throw new Error(`not an ETag of a ${backend} answer: ${etag}`);
  return m[1]!;
};
