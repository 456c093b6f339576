import { describe, expect, test } from 'vitest';
import { MAX_UPLOAD_BODY_BYTES, MAX_UPLOAD_FILE_BYTES } from '../protocol/console-terms.ts';
import { planUploadBatches, UPLOAD_LIMITS, uploadedFileBytes } from './upload-batches.ts';

/** How the Documents tab splits a selection into uploads the server takes. */

const file = (docId: string, size: number) => ({ docId, size });

describe('planUploadBatches', () => {
  test('a selection within the limits: one upload, in order', () => {
    const files = [file('a.md', 1000), file('b.pdf', 5_000_000), file('c.txt', 10)];

    expect(planUploadBatches(files)).toEqual([files]);
  });

  test('files whose base64 would pass the body limit: split in order, each upload within it', () => {
    const files = [file('a.pdf', 10_000_000), file('b.pdf', 10_000_000), file('c.pdf', 10_000_000), file('d.md', 100)];

    const batches = planUploadBatches(files);

    expect(batches.map((batch) => batch.map((entry) => entry.docId))).toEqual([['a.pdf'], ['b.pdf'], ['c.pdf', 'd.md']]);
    for (const batch of batches) expect(batch.reduce((sum, entry) => sum + uploadedFileBytes(entry.size, entry.docId), 0)).toBeLessThanOrEqual(UPLOAD_LIMITS.bodyBytes);
  });

  test('more files than one upload takes: split by count', () => {
    const files = Array.from({ length: 5 }, (_, index) => file(`${index}.md`, 10));

    expect(planUploadBatches(files, { bodyBytes: 1_000_000, files: 2 }).map((batch) => batch.length)).toEqual([2, 2, 1]);
  });

  test('the largest file the console sends fits one upload with room for the rest of the body; nothing selected: no upload', () => {
    expect(uploadedFileBytes(MAX_UPLOAD_FILE_BYTES, 'a/long/folder/name/manual.pdf')).toBeLessThanOrEqual(UPLOAD_LIMITS.bodyBytes);
    expect(UPLOAD_LIMITS.bodyBytes).toBeLessThan(MAX_UPLOAD_BODY_BYTES);
    expect(planUploadBatches([])).toEqual([]);
  });
});
