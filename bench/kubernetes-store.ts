import { issueToken } from '../server/auth/widget-tokens.ts';
import { embedPendingPassages } from '../server/embedding/embed-passages.ts';
import { ingestPaths } from '../server/ingest/pipeline/ingest-files.ts';
import { embeddedStoreLocation, openStore, type StoreLocation } from '../server/store/open-store.ts';
import type { EvalEmbedder } from '../eval/eval-embedder.ts';

/** The knowledge base the bench's Kubernetes store holds. */
export const KUBERNETES_KB_ID = 'k8s-docs';

/** An embedded store of the Kubernetes docs with a vector for every passage, and a widget token for it. */
export interface KubernetesStore {
  location: StoreLocation;
  token: string;
  passages: number;
  /** Seconds spent giving the passages their vectors. */
  embeddingSeconds: number;
}

/**
 * The Kubernetes docs of the evaluation data (`k8s-docs/docs`, 1,513 pages,
 * 13,375 passages) ingested into a new embedded store in `folder` through
 * the normal ingestion path, then every passage given its vector by the
 * server's sweep (embedding/embed-passages.ts) with the evaluation's
 * embedder: the vectors `npm run eval` keeps in `eval/.cache/` by the hash
 * of the embedded text, or the model's on the worker pool for those the
 * cache lacks (about 11 minutes for all of them on 2 cores).
 *
 * @param docs the `k8s-docs/docs` folder
 * @throws Error when a page fails to ingest
 */
export async function kubernetesStore(folder: string, docs: string, embedder: EvalEmbedder): Promise<KubernetesStore> {
  const location = embeddedStoreLocation(folder);
  const store = openStore(location);
  try {
    const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
    await store.createKnowledgeBase({ id: KUBERNETES_KB_ID, name: 'Kubernetes docs' });
    await store.setRole(KUBERNETES_KB_ID, owner.id, 'owner');
    const report = await ingestPaths(store, { kbId: KUBERNETES_KB_ID, paths: [docs], visibility: 'public', readers: [], quotable: true });
    const [failure] = report.failed;
    if (failure) throw new Error(`Ingesting "${failure.docId}" of the Kubernetes docs failed: ${failure.reason}`);
    const started = performance.now();
    const embedded = await embedPendingPassages(store, {
      modelKey: embedder.modelKey,
      kbId: KUBERNETES_KB_ID,
      embed: (texts) => embedder.embedPassages(texts),
      tokenCount: embedder.tokenCount,
    });
    const { token } = await issueToken(store, { kbId: KUBERNETES_KB_ID, issuerId: owner.id, allowedOrigins: [] }, { ttlCapMinutes: 120, now: Date.now() });
    return { location, token, passages: embedded.embedded, embeddingSeconds: (performance.now() - started) / 1000 };
  } finally {
    await store.close();
  }
}
