/**
 * A progress bar on a terminal (cli-progress); silent when stderr is not a TTY or output is JSON.
 * The bar follows what has been read (it moves between stored batches); the line says how much is
 * stored. Its length is the source's message count when known, else the mbox's size in bytes
 * (progress by bytes read), else it only counts (no percentage).
 */
import cliProgress from 'cli-progress';

export interface ProgressUpdate {
  /** Stored (committed). */
  processed: number;
  /** Read from the source, stored or not yet; default `processed`. */
  read?: number;
  total: number | undefined;
  bytesRead?: number;
  bytesTotal?: number;
  rate: number;
  etaSeconds: number | undefined;
  added?: number;
  errors?: number;
}

export interface ProgressView {
  /** Whether a bar is drawn (a terminal, and not `--json`): when not, there is no progress to follow. */
  readonly shown: boolean;
  update(p: ProgressUpdate): void;
  stop(): void;
}

/** Where the bar stands, out of `of`: messages when their count is known, else bytes, else nothing known. */
export function barPosition(p: ProgressUpdate): { at: number; of: number; unit: 'messages' | 'bytes' | 'none' } {
  const read = Math.max(p.read ?? p.processed, p.processed);
  if (p.total !== undefined && p.total > 0) return { at: Math.min(read, p.total), of: p.total, unit: 'messages' };
  if (p.bytesTotal !== undefined && p.bytesTotal > 0 && p.bytesRead !== undefined)
    return { at: Math.min(p.bytesRead, p.bytesTotal), of: p.bytesTotal, unit: 'bytes' };
  return { at: read, of: Math.max(read, 1), unit: 'none' };
}

export function createProgressView(stream: NodeJS.WritableStream & { isTTY?: boolean }, enabled: boolean, label: string): ProgressView {
  if (!enabled || !stream.isTTY) return { shown: false, update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    {
      stream: stream,
      format: `${label} [{bar}] {percentage}% | {counts} | {rate} msg/s | ETA {eta_formatted} | added {added} | errors {errors}`,
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    shown: true,
    update(p) {
      const read = Math.max(p.read ?? p.processed, p.processed);
      const pos = barPosition(p);
      const counts =
        pos.unit === 'messages'
          ? `${read}/${pos.of} read, ${p.processed} stored`
          : pos.unit === 'bytes'
            ? `${read} read, ${p.processed} stored (${Math.round(pos.at / 1048576)}/${Math.round(pos.of / 1048576)} MB)`
            : `${read} read, ${p.processed} stored`;
      const payload = { rate: Math.round(p.rate), added: p.added ?? 0, errors: p.errors ?? 0, counts };
      if (!started) {
        bar.start(pos.of, pos.at, payload);
        started = true;
      }
      bar.setTotal(pos.of);
      bar.update(pos.at, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
