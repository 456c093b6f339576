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
