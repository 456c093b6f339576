/**
 * Changing where and how a knowledge base's site is published, with the
 * stored page URLs of its documents brought along at once.
 */
import { pageUrl } from './pipeline/page-url.ts';
import type { KnowledgeBase, KnowledgeBaseChanges, Store } from '../store/store.ts';

/** What {@link updateSiteSettings} did. */
export interface SiteSettingsUpdate {
  knowledgeBase: KnowledgeBase;
  /** Documents whose stored page URL changed. */
  relinked: number;
  /**
   * The anchor style changed: anchors are made when a page is parsed, so the
   * next `kb ingest` of its folder re-parses every page (the content hash
   * includes the style); documents added through the console API keep
   * their anchors until they are put again.
   */
  anchorsStale: boolean;
}

/**
 * Applies changes to a knowledge base's name or site settings, then
 * recomputes the page URL of each of its documents from its id and the
 * front matter `url`/`slug` stored with it (page-url.ts), in one
 * transaction per call of Store.setDocumentUrls, so citations never link
 * to the old site.
 *
 * @throws NotFoundError for an unknown knowledge base; the store's errors
 */
export async function updateSiteSettings(store: Store, kbId: string, changes: KnowledgeBaseChanges): Promise<SiteSettingsUpdate> {
  const before = await store.getKnowledgeBase(kbId);
  const knowledgeBase = await store.updateKnowledgeBase(kbId, changes);
  const urls: { docId: string; url?: string }[] = [];
  for (const document of await store.listDocuments(kbId)) {
    const url = pageUrl(knowledgeBase, document.docId, document.route);
    if (url !== document.url) urls.push(url === undefined ? { docId: document.docId } : { docId: document.docId, url });
  }
  if (urls.length > 0) await store.setDocumentUrls(kbId, urls);
  return { knowledgeBase, relinked: urls.length, anchorsStale: before !== undefined && before.anchorStyle !== knowledgeBase.anchorStyle };
}
