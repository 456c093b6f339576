import type { QuestionLogEntry, QuestionLogRepository } from '../store/store.ts';

/**
 * Keeps the question log off the request path: a request hands its entry
 * over ({@link QuestionLogWriter.record}, synchronous, no I/O) and the
 * writer stores what has gathered in one transaction, every
 * {@link QuestionLogWriterOptions.flushIntervalMs} or sooner when
 * {@link QuestionLogWriterOptions.maxBatch} entries wait, as a log shipper
 * batches lines. A failed write is reported and its entries dropped (the
 * log is for insight, never worth failing or slowing an answer); so are
 * entries beyond {@link QuestionLogWriterOptions.maxPending} while the
 * database is slow, counted in {@link QuestionLogWriter.dropped}.
 */
export interface QuestionLogWriter {
  /** Queues one entry; returns at once. */
  record(entry: QuestionLogEntry): void;
  /** Writes what is queued now; resolves when it is stored (or dropped on failure). */
  flush(): Promise<void>;
  /** Entries dropped so far: over the pending cap, or in a write that failed. */
  readonly dropped: number;
  /** Writes what is queued and stops the timer. */
  close(): Promise<void>;
}

export interface QuestionLogWriterOptions {
  /** Longest time an entry waits to be written, ms (default 1,000). */
  flushIntervalMs?: number;
  /** Entries that trigger a write at once (default 200). */
  maxBatch?: number;
  /** Most entries waiting; more are dropped (default 10,000). */
  maxPending?: number;
  /** Told of a write that failed. */
  onError?: (error: Error) => void;
}

export function createQuestionLogWriter(store: Pick<QuestionLogRepository, 'addQuestionLogEntries'>, options: QuestionLogWriterOptions = {}): QuestionLogWriter {
  const flushIntervalMs = options.flushIntervalMs ?? 1_000;
  const maxBatch = options.maxBatch ?? 200;
  const maxPending = options.maxPending ?? 10_000;
  let pending: QuestionLogEntry[] = [];
  let dropped = 0;
  let writing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const flush = (): Promise<void> => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending.length === 0) return writing;
    const batch = pending;
    pending = [];
    // One write at a time, in order; the next batch gathers meanwhile.
    writing = writing.then(() =>
      store.addQuestionLogEntries(batch).catch((error: Error) => {
        dropped += batch.length;
        options.onError?.(error);
      }),
    );
    return writing;
  };

  return {
    record(entry) {
      if (pending.length >= maxPending) {
        dropped += 1;
        return;
      }
      pending.push(entry);
      if (pending.length >= maxBatch) void flush();
      else if (timer === undefined) {
        timer = setTimeout(() => void flush(), flushIntervalMs);
        // A waiting log entry never keeps the process alive.
        timer.unref();
      }
    },
    flush,
    get dropped() {
      return dropped;
    },
    close: flush,
  };
}
