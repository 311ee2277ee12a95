// Command-line numbers of the benchmarks: a flag that is not a whole number of at least `min`
// stops the run with a message naming the flag, rather than measuring with NaN (a warm-up of NaN
// seconds is silently none).

/** `value` of `--flag` as a whole number of at least `min`, or an error naming the flag. */
export function wholeFlag(flag: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} ${value}: give a whole number of at least ${min}`);
  return n;
}
