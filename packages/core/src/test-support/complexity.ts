/**
 * Generous complexity checks (house rule: "4× the input takes < 10× the time"): median process
 * CPU time of a few runs at size n and at 4n. A linear function gives ~4, a quadratic one ~16.
 */
/** Median process CPU time (ms) of `runs` calls of `f`. */
export function medianCpuMs(f: () => void, runs: number): number {
  const times: number[] = [];
  for (let k = 0; k < runs; k++) {
    const t0 = process.cpuUsage();
    f();
    const d = process.cpuUsage(t0);
    times.push((d.user + d.system) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

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
  const a = Math.max(medianCpuMs(run(small), 5), 1);
  const b = medianCpuMs(run(large), 5);
  return b / a;
}

/** The same for async work (one run each, best of three). */
export async function growthRatioAsync<T>(make: (n: number) => T, fn: (input: T) => Promise<unknown>, n: number): Promise<number> {
  const time = async (input: T): Promise<number> => {
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const t0 = process.cpuUsage();
      await fn(input);
      const d = process.cpuUsage(t0);
      best = Math.min(best, (d.user + d.system) / 1000);
    }
    return best;
  };
  const small = make(n);
  const large = make(4 * n);
  await fn(small);
  return (await time(large)) / Math.max(await time(small), 1);
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
