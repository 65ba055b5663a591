import { loadAvg1m, machineInfo, type MachineInfo } from '../measure.js';
import { gitCommit, type BenchResult, type Metric, type ScenarioName, type Target } from '../results.js';

export type Log = (line: string) => void;

/** Starts a result; `finish` stamps the end time and the load average then. */
export function startResult(
  scenario: ScenarioName,
  config: Record<string, unknown>,
): {
  metrics: Record<string, Metric>;
  targets: Target[];
  details: Record<string, unknown>;
  finish: () => BenchResult;
} {
  const startedAt = new Date().toISOString();
  const machine: MachineInfo = machineInfo();
  const metrics: Record<string, Metric> = {};
  const targets: Target[] = [];
  const details: Record<string, unknown> = {};
  return {
    metrics,
    targets,
    details,
    finish: () => ({
      format: 1,
      scenario,
      startedAt,
      finishedAt: new Date().toISOString(),
      gitCommit: gitCommit(),
      machine: { ...machine, loadAvg1mEnd: loadAvg1m() },
      config,
      metrics,
      targets,
      details,
    }),
  };
}

export const peakRss = (r: { rssSampledPeakBytes: number; rssHwmBytes: number | null }): number => Math.max(r.rssSampledPeakBytes, r.rssHwmBytes ?? 0);
