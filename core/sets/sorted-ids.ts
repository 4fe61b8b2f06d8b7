// Ids in sorted arrays (a node's sets and tables): membership without building a Set.

/** Binary search. */
export function includesSorted(list: readonly string[], id: string): boolean {
  let [lo, hi] = [0, list.length - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = list[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Whether two sorted lists share an id: binary searches when `some` is short, else one merge walk. */
export function sharesAny(ids: readonly string[], some: readonly string[]): boolean {
  if (some.length === 0 || ids.length === 0) return false;
  if (some.length * 16 < ids.length) return some.some((id) => includesSorted(ids, id));
  for (let i = 0, j = 0; i < ids.length && j < some.length; ) {
    if (ids[i] === some[j]) return true;
    if (ids[i]! < some[j]!) i++;
    else j++;
  }
  return false;
}
