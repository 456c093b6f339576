import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

/**
 * Reads members of a Python wheel, which is a zip archive (PEP 427), with
 * yauzl: only the members asked for are inflated.
 *
 * @param wheel the whole wheel
 * @param members paths inside the archive
 * @returns each member's bytes by its path
 * @throws Error when the bytes are not a zip archive, or naming a member the archive lacks
 */
export async function readWheelMembers(wheel: Buffer, members: readonly string[]): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(wheel, { lazyEntries: true }, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  const wanted = new Set(members);
  const found = new Map<string, Buffer>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!wanted.has(entry.fileName)) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (error, stream) => {
          if (error) return reject(error);
          collect(stream).then((bytes) => {
            found.set(entry.fileName, bytes);
            zip.readEntry();
          }, reject);
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  const missing = members.find((member) => !found.has(member));
  if (missing !== undefined) throw new Error(`The wheel holds no "${missing}"`);
  return found;
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
