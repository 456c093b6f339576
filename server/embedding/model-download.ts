/**
 * HTTP downloads for model files: the whole body in memory (model files and
 * wheels are tens of MB), with progress, and abandoned when the server sends
 * nothing for {@link IDLE_TIMEOUT_MS} (a slow network still finishes; a dead
 * one fails instead of hanging the install).
 */

/** Milliseconds without a byte after which a download is abandoned. */
export const IDLE_TIMEOUT_MS = 30_000;

/** Bytes received so far of a download, and its length when the server said. */
export interface DownloadProgress {
  receivedBytes: number;
  totalBytes: number | undefined;
}

export interface DownloadOptions {
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  onProgress?: (progress: DownloadProgress) => void;
  idleTimeoutMs?: number;
}

/**
 * @returns the response body
 * @throws Error naming the URL and the status, or the network failure
 */
export async function download(url: string, options: DownloadOptions = {}): Promise<Buffer> {
  const controller = new AbortController();
  const idle = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  let timer = setTimeout(() => controller.abort(), idle);
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(), idle);
  };
  try {
    const response = await (options.fetch ?? fetch)(url, { headers: options.headers ?? {}, signal: controller.signal, redirect: 'follow' });
    if (!response.ok || !response.body) throw new Error(`GET ${url} answered ${response.status} ${response.statusText}`.trimEnd());
    const length = Number(response.headers.get('content-length'));
    const totalBytes = Number.isFinite(length) && length > 0 ? length : undefined;
    const chunks: Uint8Array[] = [];
    let receivedBytes = 0;
    for await (const chunk of response.body) {
      touch();
      chunks.push(chunk);
      receivedBytes += chunk.byteLength;
      options.onProgress?.({ receivedBytes, totalBytes });
    }
    return Buffer.concat(chunks);
  } catch (error) {
    if (controller.signal.aborted) throw new Error(`GET ${url} sent nothing for ${idle / 1000} s`);
    if (error instanceof Error && error.message.startsWith('GET ')) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`GET ${url} failed: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
