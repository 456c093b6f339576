import { MAX_UPLOAD_BODY_BYTES, MAX_UPLOAD_FILES } from '../protocol/console-terms.ts';

/** Bytes of an upload's body kept for what is not a file: visibility, readers (up to 1,000 ids), quotable. */
const RESERVED_BODY_BYTES = 64 * 1024;

/** Bytes of JSON around one file in an upload's body: `{"doc_id":…,"content_base64":"…"},`. */
const FILE_OVERHEAD_BYTES = 40;

/** What one upload (`POST …/uploads`) may carry. */
export interface UploadLimits {
  /** Bytes of JSON for the files. */
  bodyBytes: number;
  files: number;
}

/** The server's limits (protocol/console-protocol.ts), less the room the rest of the body needs. */
export const UPLOAD_LIMITS: UploadLimits = { bodyBytes: MAX_UPLOAD_BODY_BYTES - RESERVED_BODY_BYTES, files: MAX_UPLOAD_FILES };

/**
 * Bytes of JSON a file takes in an upload's body: its bytes in base64 (4
 * characters for every 3 bytes, RFC 4648 section 4), its id as a JSON
 * string, and the fields around them.
 *
 * @param size the file's size, bytes
 */
export function uploadedFileBytes(size: number, docId: string): number {
  return 4 * Math.ceil(size / 3) + new TextEncoder().encode(JSON.stringify(docId)).length + FILE_OVERHEAD_BYTES;
}

/**
 * Splits a selection of files into uploads that each fit the server's
 * limits, keeping their order: a file goes into the current upload while
 * it fits, else starts the next. A file too large for any upload gets one
 * of its own (the caller refuses such files before).
 *
 * @returns the files, upload by upload (none for no files)
 */
export function planUploadBatches<File extends { size: number; docId: string }>(files: readonly File[], limits: UploadLimits = UPLOAD_LIMITS): File[][] {
  const batches: File[][] = [];
  let current: File[] = [];
  let bytes = 0;
  for (const file of files) {
    const fileBytes = uploadedFileBytes(file.size, file.docId);
    if (current.length > 0 && (bytes + fileBytes > limits.bodyBytes || current.length >= limits.files)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += fileBytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
