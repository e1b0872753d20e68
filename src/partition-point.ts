/**
 * In a sequence of `length` items where `isBefore(i)` holds for a prefix and not after it, the
 * index of the first item it does not hold for (`length` when it holds for all): a binary search.
 */
export function partitionPoint(length: number, isBefore: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (isBefore(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}
