/** A progress bar on a terminal (cli-progress); silent when stderr is not a TTY or output is JSON. */
import cliProgress from 'cli-progress';

export interface ProgressView {
  update(p: { processed: number; total: number | undefined; rate: number; etaSeconds: number | undefined; added?: number; errors?: number }): void;
  stop(): void;
}

export function createProgressView(stream: NodeJS.WritableStream & { isTTY?: boolean }, enabled: boolean, label: string): ProgressView {
  if (!enabled || !stream.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    {
      stream: stream,
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {rate} msg/s | ETA {eta_formatted} | added {added} | errors {errors}`,
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(p) {
      const payload = { rate: Math.round(p.rate), added: p.added ?? 0, errors: p.errors ?? 0 };
      const total = p.total ?? Math.max(p.processed, 1);
      if (!started) {
        bar.start(total, p.processed, payload);
        started = true;
      }
      bar.setTotal(total);
      bar.update(p.processed, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
