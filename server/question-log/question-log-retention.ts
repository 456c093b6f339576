import type { QuestionLogRepository } from '../store/store.ts';

/** How often old entries are removed, ms: hourly, so none outlives its retention by more than an hour. */
export const RETENTION_SWEEP_MS = 60 * 60 * 1000;

/**
 * Keeps the question log within its retention period: removes the entries
 * older than `retentionDays` now and then every {@link RETENTION_SWEEP_MS}.
 * With a retention of 0 the log is off: what it held is removed now.
 *
 * @param retentionDays days an entry is kept (0: the log is off)
 * @param now clock, epoch ms
 * @returns stops the sweeps
 */
export function startQuestionLogRetention(
  store: Pick<QuestionLogRepository, 'pruneQuestionLog'>,
  options: { retentionDays: number; now: () => number; onError?: (error: Error) => void },
): () => void {
  const sweep = () => {
    void store.pruneQuestionLog(options.now() - options.retentionDays * 24 * 60 * 60 * 1000).catch((error: Error) => options.onError?.(error));
  };
  sweep();
  if (options.retentionDays === 0) return () => undefined;
  const timer = setInterval(sweep, RETENTION_SWEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}
