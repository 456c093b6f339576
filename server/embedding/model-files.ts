import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelFile, ModelSpec } from './model-manifest.ts';

/**
 * A model's files on disk: where the verified copies live and how they are
 * checked. A file is used only once its sha256 matches the manifest's; a
 * mismatch is an error that names the file.
 */

/** A model file whose bytes are not the ones the manifest pins. */
export class ModelIntegrityError extends Error {
  /** The file's manifest name. */
  readonly file: string;
  /** Where it was read from (a path or a URL). */
  readonly location: string;
  readonly expected: string;
  readonly actual: string;

  constructor(file: string, location: string, expected: string, actual: string) {
    super(`Model file "${file}" from ${location} has sha256 ${actual}, not the ${expected} the model manifest pins; it was not used`);
    this.name = 'ModelIntegrityError';
    this.file = file;
    this.location = location;
    this.expected = expected;
    this.actual = actual;
  }
}

/** The folder of a model's verified files under a cache folder: `{cache}/{id with / as --}/{revision}-{variant}`. */
export function modelFolder(cacheDir: string, model: Pick<ModelSpec, 'id' | 'revision' | 'variant'>): string {
  return join(cacheDir, model.id.replaceAll('/', '--'), `${model.revision}-${model.variant}`);
}

/** The sha256 of bytes, as lowercase hex. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The sha256 of a file, read as a stream (lowercase hex). */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Checks bytes against a manifest file.
 *
 * @throws ModelIntegrityError when their sha256 differs
 */
export function checkBytes(file: ModelFile, bytes: Uint8Array, location: string): void {
  const actual = sha256Of(bytes);
  if (actual !== file.sha256) throw new ModelIntegrityError(file.name, location, file.sha256, actual);
}

/**
 * Checks every file of a model in a folder against the manifest.
 *
 * @returns the folder, when every file is there and matches
 * @throws ModelIntegrityError naming the first file whose sha256 differs
 * @throws Error (ENOENT) when a file is missing
 */
export async function verifyModelFolder(model: Pick<ModelSpec, 'files'>, folder: string): Promise<string> {
  for (const file of model.files) {
    const path = join(folder, file.name);
    const actual = await sha256OfFile(path);
    if (actual !== file.sha256) throw new ModelIntegrityError(file.name, path, file.sha256, actual);
  }
  return folder;
}

/**
 * The model's verified folder in the cache, if every file is there.
 *
 * @returns undefined when a file is missing
 * @throws ModelIntegrityError when a file is there but is not the pinned one
 */
export async function installedModelFolder(cacheDir: string, model: ModelSpec): Promise<string | undefined> {
  try {
    return await verifyModelFolder(model, modelFolder(cacheDir, model));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Checks bytes against the manifest, then writes them into the model's
 * cache folder through a temporary name renamed into place, so a reader
 * never sees half a file and no unverified file is ever cached.
 *
 * @param location where the bytes were read (named by the error)
 * @throws ModelIntegrityError when their sha256 differs; nothing is written then
 */
export async function storeModelFile(cacheDir: string, model: ModelSpec, file: ModelFile, bytes: Uint8Array, location: string): Promise<void> {
  checkBytes(file, bytes, location);
  const folder = modelFolder(cacheDir, model);
  await mkdir(folder, { recursive: true });
  const partial = join(folder, `.${file.name}.${randomBytes(6).toString('hex')}.partial`);
  try {
    await writeFile(partial, bytes);
    await rename(partial, join(folder, file.name));
  } finally {
    await rm(partial, { force: true });
  }
}

/** Reads a file of the model's verified folder (after {@link verifyModelFolder}). */
export function readModelFile(folder: string, name: string): Promise<Buffer> {
  return readFile(join(folder, name));
}
