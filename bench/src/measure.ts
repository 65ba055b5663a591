/** Small measuring tools: RSS sampling, CPU time, percentiles, the machine's description. */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem, platform, release } from 'node:os';

/**
 * Peak resident memory of this process. Worker threads live in the same process, so its RSS
 * covers them; sampling catches the curve, and the kernel's high-water mark (VmHWM) catches a
 * peak between two samples.
 */
export class RssSampler {
  #peak = 0;
  #samples = 0;
  #timer: NodeJS.Timeout;

  constructor(intervalMs = 25) {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
    this.#timer.unref();
  }

  #sample(): void {
    this.#peak = Math.max(this.#peak, process.memoryUsage.rss());
    this.#samples += 1;
  }

  /** Ends a phase: its peaks, then both peaks start again from the current RSS. */
  phase(): { sampledPeakBytes: number; hwmBytes: number | null } {
    this.#sample();
    const out = { sampledPeakBytes: this.#peak, hwmBytes: highWaterMark() };
    this.#peak = 0;
    resetHighWaterMark();
    this.#sample();
    return out;
  }

  stop(): { sampledPeakBytes: number; samples: number; hwmBytes: number | null } {
    clearInterval(this.#timer);
    this.#sample();
    return { sampledPeakBytes: this.#peak, samples: this.#samples, hwmBytes: highWaterMark() };
  }
}

/** The kernel's peak RSS of this process (Linux `VmHWM`), or null elsewhere. */
function highWaterMark(): number | null {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Resets VmHWM to the current RSS (Linux: `5` into /proc/self/clear_refs); false when it cannot. */
function resetHighWaterMark(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** User + system CPU milliseconds of the whole process (all threads) since `since`. */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

/** Nearest-rank percentile of unsorted values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
}

export const round = (n: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

export const MB = 1024 * 1024;

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memTotalGiB: number;
  memFreeGiB: number;
  node: string;
  os: string;
  /** 1-minute load average when the scenario started and ended: other work on the box skews wall times. */
  loadAvg1mStart: number;
  loadAvg1mEnd?: number;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memTotalGiB: round(totalmem() / 2 ** 30, 1),
    memFreeGiB: round(freemem() / 2 ** 30, 1),
    node: process.version,
    os: `${platform()} ${release()}`,
    loadAvg1mStart: round(loadavg()[0] ?? 0, 2),
  };
}

export const loadAvg1m = (): number => round(loadavg()[0] ?? 0, 2);
