import { describe, expect, test } from 'vitest';
import { updateSiteSettings } from './site-settings.ts';
import { analyzedDocument } from '../testing/analyzed-document.ts';
import { openTestStore } from '../testing/test-store.ts';
import type { DocumentInput } from '../store/store.ts';

function page(docId: string, route?: DocumentInput['route']): DocumentInput {
  return analyzedDocument('kb', docId, docId, [{ headingPath: [docId], text: `Text of ${docId}.` }], {
    contentHash: `hash-of-${docId}`,
    ...(route === undefined ? {} : { route }),
  });
}

describe('updateSiteSettings', () => {
  test('a new base URL: every page URL recomputed from its path and front matter route, content untouched', async (context) => {
    // Arrange
    const { store, close } = await openTestStore();
    context.onTestFinished(close);
    await store.createKnowledgeBase({ id: 'kb', name: 'KB' });
    await store.putDocument(page('guide/setup.md'));
    await store.putDocument(page('guide/_index.md', { slug: 'start' }));
    await store.putDocument(page('elsewhere.md', { url: 'https://other.example.com/page/' }));

    // Act
    const update = await updateSiteSettings(store, 'kb', { baseUrl: 'https://docs.example.com/', urlStyle: 'html' });
    const withSite = await store.listDocuments('kb');
    const removed = await updateSiteSettings(store, 'kb', { baseUrl: null });
    const withoutSite = await store.listDocuments('kb');

    // Assert
    expect(update).toMatchObject({ relinked: 3, anchorsStale: false, knowledgeBase: { baseUrl: 'https://docs.example.com/', urlStyle: 'html' } });
    expect(withSite.map((document) => [document.docId, document.url, document.contentHash])).toEqual([
      ['elsewhere.md', 'https://other.example.com/page/', 'hash-of-elsewhere.md'],
      ['guide/_index.md', 'https://docs.example.com/guide/start.html', 'hash-of-guide/_index.md'],
      ['guide/setup.md', 'https://docs.example.com/guide/setup.html', 'hash-of-guide/setup.md'],
    ]);
    expect(removed.relinked).toBe(2);
    expect(withoutSite.map((document) => document.url)).toEqual(['https://other.example.com/page/', undefined, undefined]);
  });

  test('a new anchor style: reported as needing a new ingest', async (context) => {
    const { store, close } = await openTestStore();
    context.onTestFinished(close);
    await store.createKnowledgeBase({ id: 'kb', name: 'KB' });

    await expect(updateSiteSettings(store, 'kb', { anchorStyle: 'node' })).resolves.toMatchObject({ relinked: 0, anchorsStale: true });
    await expect(updateSiteSettings(store, 'kb', { name: 'Renamed' })).resolves.toMatchObject({ anchorsStale: false });
  });
});
