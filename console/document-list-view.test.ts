import { describe, expect, it } from 'vitest';
import type { ConsoleDocument } from '../protocol/console-protocol.ts';
import { DOCUMENTS_PER_PAGE, documentListPage } from './document-list-view.ts';

/** `count` documents `doc-0000.md` … with titles `Guide 0` …, every third restricted, the others public. */
function documents(count: number): ConsoleDocument[] {
  return Array.from({ length: count }, (_, index) => ({
    doc_id: `doc-${String(index).padStart(4, '0')}.md`,
    title: `Guide ${index}`,
    visibility: index % 3 === 0 ? 'restricted' : 'public',
  }));
}

describe('documentListPage', () => {
  it('5,000 documents, no search: the first 50 of 100 pages', () => {
    const page = documentListPage(documents(5000), { search: '', visibility: 'all', page: 0 });

    expect(page.rows).toHaveLength(DOCUMENTS_PER_PAGE);
    expect([page.rows[0]!.doc_id, page.matching, page.page, page.pages]).toEqual(['doc-0000.md', 5000, 0, 100]);
  });

  it('search by id or title, any case, spaces around ignored', () => {
    const all = documents(5000);

    expect(documentListPage(all, { search: ' DOC-4321 ', visibility: 'all', page: 0 }).rows.map((document) => document.doc_id)).toEqual(['doc-4321.md']);
    expect(documentListPage(all, { search: 'guide 4321', visibility: 'all', page: 0 }).rows.map((document) => document.doc_id)).toEqual(['doc-4321.md']);
    expect(documentListPage(all, { search: 'nothing like it', visibility: 'all', page: 0 })).toEqual({ rows: [], matching: 0, page: 0, pages: 1 });
  });

  it('a visibility: only its documents, counted', () => {
    const page = documentListPage(documents(5000), { search: '', visibility: 'restricted', page: 0 });

    expect(page.matching).toBe(1667);
    expect(page.rows.every((document) => document.visibility === 'restricted')).toBe(true);
  });

  it('a page past the last (the matches shrank): the last page', () => {
    const page = documentListPage(documents(120), { search: '', visibility: 'all', page: 7 });

    expect([page.page, page.pages, page.rows.length, page.rows[0]!.doc_id]).toEqual([2, 3, 20, 'doc-0100.md']);
  });
});
