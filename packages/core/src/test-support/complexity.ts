/**
 * Generous complexity checks (house rule: "4× the input takes < 10× the time"): process CPU time
 * at size n and at 4n. A linear function gives ~4 (5–8 once the larger input's garbage is
 * counted), a quadratic one ~16.
 *
 * Noise on a shared machine (the other test fork, a GC of an earlier test's heap) only ever adds
 * time, so each size takes its fastest of a few runs, and a ratio over 10 is measured again, up to
 * three times, keeping the lowest: a quadratic pass cannot get under 10 that way, while one
 * disturbed run of a linear pass no longer fails the suite.
 */
/** Fastest process CPU time (ms) of `runs` calls of `f`. */
function fastestCpuMs(f: () => void, runs: number): number {
  let best = Infinity;
  for (let k = 0; k < runs; k++) {
    const t0 = process.cpuUsage();
    f();
    const d = process.cpuUsage(t0);
    best = Math.min(best, (d.user + d.system) / 1000);
  }
  return best;
}

/** The ratio at or under which a growth measurement is not retried (the tests' bound). */
const SETTLED_RATIO = 10;
const ATTEMPTS = 3;

/**
 * time(fn(make(4n))) / time(fn(make(n))). `make` builds the input outside the measured time;
 * `repeat` runs of fn per measurement lift a small n above the timer's resolution.
 */
export function growthRatio<T>(make: (n: number) => T, fn: (input: T) => unknown, n: number, repeat = 1): number {
  const small = make(n);
  const large = make(4 * n);
  fn(large); // warm up (JIT, lazy tables)
  const run = (input: T) => (): void => {
    for (let k = 0; k < repeat; k++) fn(input);
  };
  let lowest = Infinity;
  for (let attempt = 0; attempt < ATTEMPTS && lowest >= SETTLED_RATIO; attempt++) {
    const a = Math.max(fastestCpuMs(run(small), 5), 1);
    const b = fastestCpuMs(run(large), 5);
    lowest = Math.min(lowest, b / a);
  }
  return lowest;
}

/** The same for async work (fastest of three runs per size, retried like `growthRatio`). */
export async function growthRatioAsync<T>(make: (n: number) => T, fn: (input: T) => Promise<unknown>, n: number): Promise<number> {
  const time = async (input: T): Promise<number> => {
    let best = Infinity;
    for (let k = 0; k < 3; k++) best = Math.min(best, await cpuMsOf(() => fn(input)));
    return best;
  };
  const small = make(n);
  const large = make(4 * n);
  await fn(small);
  let lowest = Infinity;
  for (let attempt = 0; attempt < ATTEMPTS && lowest >= SETTLED_RATIO; attempt++) {
    lowest = Math.min(lowest, (await time(large)) / Math.max(await time(small), 1));
  }
  return lowest;
}

/**
 * Process CPU time (ms) of one call: the "finishes within a budget" checks use it rather than
 * wall time, which on a shared, loaded machine measures the neighbours.
 */
export async function cpuMsOf(f: () => unknown): Promise<number> {
  const t0 = process.cpuUsage();
  await f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}
