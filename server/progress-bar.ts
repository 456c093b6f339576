import cliProgress from 'cli-progress';

/**
 * A progress reporter for long ingests: a bar on an interactive terminal,
 * nothing otherwise (logs and CI stay clean).
 *
 * @param label what is being done, e.g. "Ingesting node-docs"
 * @returns `update` for each step and `stop` when done
 */
export function createProgressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  if (!stream.isTTY) {
    return { update: (_progress: { done: number; total: number; docId: string }) => undefined, stop: () => undefined };
  }
  const bar = new cliProgress.SingleBar(
    { format: `${label} {bar} {value}/{total} {docId}`, stream, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(progress: { done: number; total: number; docId: string }) {
      if (!started) {
        bar.start(progress.total, 0, { docId: '' });
        started = true;
      }
      bar.update(progress.done, { docId: progress.docId });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** A download's progress: the file, where it comes from, and bytes so far (of the total when known). */
export interface DownloadStep {
  file: string;
  source: string;
  receivedBytes: number;
  totalBytes: number | undefined;
}

/**
 * A progress reporter for downloads (the embedding model): a bar per file on
 * an interactive terminal, one line per file otherwise (CI logs).
 *
 * @param label what is being fetched, e.g. "Embedding model"
 */
export function createDownloadProgress(label: string, stream: NodeJS.WriteStream = process.stderr) {
  let current = '';
  if (!stream.isTTY) {
    return {
      update(step: DownloadStep) {
        const key = `${step.file} ${step.source}`;
        if (key === current) return;
        current = key;
        stream.write(`${label}: fetching ${step.file} from ${step.source}\n`);
      },
      stop: () => undefined,
    };
  }
  const bar = new cliProgress.SingleBar(
    { format: `${label} {bar} {percentage}% {file} from {source} ({mb} MB)`, stream, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(step: DownloadStep) {
      const key = `${step.file} ${step.source}`;
      const total = step.totalBytes ?? step.receivedBytes;
      const payload = { file: step.file, source: step.source, mb: (step.receivedBytes / 1e6).toFixed(1) };
      if (!started || key !== current) {
        if (started) bar.stop();
        bar.start(total, 0, payload);
        started = true;
        current = key;
      }
      bar.setTotal(total);
      bar.update(step.receivedBytes, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
