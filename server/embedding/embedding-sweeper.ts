import { embedPendingPassages, type EmbedPassagesOptions, type EmbedPassagesReport, type PassageVectorStore } from './embed-passages.ts';

/**
 * Keeps passage vectors up with ingests: whatever writes passages - an
 * upload, a website import or its re-sync, `npm run kb -- ingest` in
 * another process, another replica - the passages without a vector are
 * embedded by the next sweep: at once when this process's ingest jobs end
 * (`trigger`), else within {@link SWEEP_INTERVAL_MS}. One sweep at a time;
 * until a passage has its vector it is found by BM25F alone.
 */

/** Milliseconds between sweeps when nothing triggers one. */
export const SWEEP_INTERVAL_MS = 10_000;

export interface EmbeddingSweeper {
  /** Sweeps as soon as the current sweep (if any) ends. */
  trigger(): void;
  /**
   * Starts no further sweep, round or batch, and settles once the batches
   * in flight have ended (then the embedding pool may be closed).
   */
  stop(): Promise<void>;
}

export function startEmbeddingSweeper(
  store: PassageVectorStore,
  options: Omit<EmbedPassagesOptions, 'kbId'> & {
    intervalMs?: number;
    onSweep?: (report: EmbedPassagesReport) => void;
    onError: (error: Error) => void;
  },
): EmbeddingSweeper {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const sweep = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = embedPendingPassages(store, { ...options, stopped: () => stopped })
      .then((report) => {
        if (report.embedded > 0) options.onSweep?.(report);
      })
      .catch((error: unknown) => {
        if (!stopped) options.onError(error instanceof Error ? error : new Error(String(error)));
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          sweep();
        }
      });
  };
  const timer = setInterval(sweep, options.intervalMs ?? SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    trigger: sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
