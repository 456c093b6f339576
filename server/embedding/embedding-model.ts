import { fetchModel, type ModelFetchOptions } from './model-fetch.ts';
import { defaultModel, modelKey, type ModelSpec } from './model-manifest.ts';

/**
 * Whether the server has its embedding model, as the banner, `/readyz` and
 * `/metrics` report it: `ready` (retrieval is hybrid, BM25F and dense) or
 * `unavailable` (no source could give a verified copy; retrieval is BM25F
 * alone until a start that has it).
 */
export type EmbeddingStatus =
  | { state: 'ready'; model: ModelSpec; key: string; folder: string; fetched: { file: string; source: string }[] }
  | { state: 'unavailable'; model: ModelSpec; reason: string }
  | { state: 'off'; model: ModelSpec };

/**
 * The model, from the cache `npm install` filled, else fetched now (the
 * first `npm start` of an install that could not fetch it), every file
 * verified against the manifest's sha256.
 *
 * @param enabled false when the operator turned dense retrieval off (KB_EMBEDDING=off)
 * @returns never throws: a failure is the `unavailable` status with its reason
 */
export async function prepareEmbeddingModel(options: ModelFetchOptions & { enabled?: boolean }): Promise<EmbeddingStatus> {
  const model = defaultModel();
  if (options.enabled === false) return { state: 'off', model };
  try {
    const { folder, fetched } = await fetchModel(model, options);
    return { state: 'ready', model, key: modelKey(model), folder, fetched };
  } catch (error) {
    return { state: 'unavailable', model, reason: (error as Error).message };
  }
}

/** What `/readyz` and the banner say of retrieval. */
export interface RetrievalStatus {
  /** `hybrid`: BM25F and dense retrieval fused; `lexical`: BM25F alone. */
  mode: 'hybrid' | 'lexical';
  /** The embedding model (id and variant). */
  model: string;
  /** Why retrieval is lexical only, when it is. */
  reason?: string;
}

export function retrievalStatus(status: EmbeddingStatus): RetrievalStatus {
  const model = `${status.model.id} (${status.model.variant})`;
  switch (status.state) {
    case 'ready':
      return { mode: 'hybrid', model };
    case 'off':
      return { mode: 'lexical', model, reason: 'dense retrieval is turned off (KB_EMBEDDING=off)' };
    case 'unavailable':
      return { mode: 'lexical', model, reason: `the embedding model is unavailable: ${status.reason}` };
  }
}
