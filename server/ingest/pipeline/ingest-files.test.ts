import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { analyze } from '../../retrieval/analyzer.ts';
import { openStore } from '../../store/open-store.ts';
import { makePdf } from '../../testing/pdf-fixture.ts';
import { createTestStoreLocation } from '../../testing/test-store.ts';
import type { Reach, Store, Visibility } from '../../store/store.ts';
import { INGEST_BATCH_DOCUMENTS, ingestPaths, type IngestOptions, type IngestReport } from './ingest-files.ts';
import { PARALLEL_PREPARE_MIN_DOCUMENTS } from './prepare-pool.ts';
import { createLexicalRetriever } from '../../retrieval/lexical-retriever.ts';

const KB_ID = 'kb';

/** Bytes that are not UTF-8: a lone continuation byte and an invalid lead byte. */
const INVALID_UTF8 = Buffer.from([0x23, 0x20, 0x54, 0x69, 0x74, 0x6c, 0x65, 0x0a, 0x0a, 0x80, 0xff, 0xfe, 0x0a]);

interface Workspace {
  store: Store;
  /** The folder whose files are ingested (inside the temporary folder). */
  sources: string;
  /** Writes a file under `sources`, creating its folders. */
  write(relativePath: string, content: string | Buffer): Promise<string>;
  /** Ingests `paths` (default: the `sources` folder) with public, quotable defaults. */
  ingest(options?: Partial<Omit<IngestOptions, 'kbId'>>): Promise<IngestReport>;
  /** Doc ids of the passages a public search for `question` finds, best first. */
  searchDocIds(question: string, reach?: Partial<Reach>): Promise<string[]>;
  /** Moves the store's clock forward. */
  advance(milliseconds: number): void;
}

/** A fresh store and source folder in a temporary folder, removed after the test. */
async function openWorkspace(): Promise<Workspace> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-ingest-files-test-'));
  let clock = Date.UTC(2026, 0, 15, 12, 0, 0);
  const { location, dispose } = await createTestStoreLocation(folder);
  const store = openStore(location, () => clock);
  onTestFinished(async () => {
    await store.close();
    await dispose();
    await rm(folder, { recursive: true, force: true });
  });
  await store.createKnowledgeBase({ id: KB_ID, name: 'Knowledge base' });
  const sources = join(folder, 'sources');
  await mkdir(sources);
  return {
    store,
    sources,
    async write(relativePath, content) {
      const path = join(sources, relativePath);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
      return path;
    },
    ingest(options = {}) {
      return ingestPaths(store, {
        kbId: KB_ID,
        paths: [sources],
        visibility: 'public',
        readers: [],
        quotable: true,
        ...options,
      });
    },
    async searchDocIds(question, reach = {}) {
      const result = await createLexicalRetriever(store).search({
        reach: { kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'], ...reach },
        terms: analyze(question),
        topK: 20,
      });
      return result.passages.map((passage) => passage.docId);
    },
    advance(milliseconds) {
      clock += milliseconds;
    },
  };
}

function emptyReport(): IngestReport {
  return { created: [], updated: [], unchanged: [], removed: [], skipped: [], failed: [] };
}

describe('ingestPaths', () => {
  test('two given folders holding a file with the same relative path: the second is reported failed by path, not silently dropped', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const first = await workspace.write('one/a.md', '# A\n\nThe first aardvark.\n');
    const second = await workspace.write('two/a.md', '# A\n\nThe second aardvark.\n');

    // Act
    const report = await workspace.ingest({ paths: [dirname(first), dirname(second)] });

    // Assert
    expect(report.created).toEqual(['a.md']);
    expect(report.failed).toEqual([
      { docId: 'a.md', path: second, reason: 'Another file given in this ingest has the same document id "a.md"' },
    ]);
  });

  test('folder of markdown, HTML and text with a nested folder: doc ids are "/"-separated paths relative to the folder', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('guide.md', '# Guide\n\n## Setup\n\nThe aardvark installs the package.\n');
    await workspace.write('intro.html', '<html><head><title>Intro</title></head><body><p>The pangolin greets visitors.</p></body></html>');
    await workspace.write('notes.txt', 'The wombat keeps notes.\n');
    await workspace.write('guides/setup/install.md', '# Install\n\nThe narwhal runs the installer.\n');

    // Act
    const report = await workspace.ingest();

    // Assert
    expect({ ...report, created: [...report.created].sort() }).toEqual({
      ...emptyReport(),
      created: ['guide.md', 'guides/setup/install.md', 'intro.html', 'notes.txt'],
    });
    const documents = await workspace.store.listDocuments(KB_ID);
    expect(documents.map((document) => document.docId)).toEqual([
      'guide.md',
      'guides/setup/install.md',
      'intro.html',
      'notes.txt',
    ]);
    expect(documents.every((document) => document.sourceRoot === workspace.sources)).toBe(true);
    expect(await workspace.searchDocIds('narwhal')).toEqual(['guides/setup/install.md']);
    expect(await workspace.searchDocIds('pangolin')).toEqual(['intro.html']);
    expect(await workspace.searchDocIds('wombat')).toEqual(['notes.txt']);
  });

  test('folder with hidden files, hidden folders, node_modules and unsupported extensions: only the supported visible files are ingested', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('visible.md', '# Visible\n\nThe kestrel is visible.\n');
    await workspace.write('.hidden.md', '# Hidden\n\nThe kestrel hides here.\n');
    await workspace.write('.git/notes.md', '# Git\n\nThe kestrel lives in git.\n');
    await workspace.write('node_modules/package/readme.md', '# Package\n\nThe kestrel is a dependency.\n');
    await workspace.write('diagram.png', 'The kestrel is drawn here.');
    await workspace.write('manual.docx', 'The kestrel is printed here.');
    await workspace.write('README', 'The kestrel has no extension.');

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report).toEqual({ ...emptyReport(), created: ['visible.md'] });
    expect((await workspace.store.listDocuments(KB_ID)).map((document) => document.docId)).toEqual(['visible.md']);
    expect(await workspace.searchDocIds('kestrel')).toEqual(['visible.md']);
  });

  test('folder re-ingested unchanged: every document unchanged and the stored passages untouched', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('a.md', '# A\n\n## First\n\nThe heron fishes at dawn.\n\n## Second\n\nThe heron sleeps at night.\n');
    await workspace.write('b/c.txt', 'The heron flies south.\n');
    await workspace.ingest();
    const search = () =>
      createLexicalRetriever(workspace.store).search({
        reach: { kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'] },
        terms: analyze('heron'),
        topK: 10,
      });
    const documentsBefore = await workspace.store.listDocuments(KB_ID);
    const searchBefore = await search();
    workspace.advance(60_000);

    // Act
    const report = await workspace.ingest();

    // Assert
    expect({ ...report, unchanged: [...report.unchanged].sort() }).toEqual({ ...emptyReport(), unchanged: ['a.md', 'b/c.txt'] });
    expect(await workspace.store.listDocuments(KB_ID)).toEqual(documentsBefore);
    const searchAfter = await search();
    expect(searchAfter).toEqual(searchBefore);
    expect(searchAfter.passages).toHaveLength(3);
  });

  test('modified file: reported updated, its new text searchable and its old text no longer', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('animals.md', '# Animals\n\nThe aardvark digs burrows.\n');
    await workspace.write('other.md', '# Other\n\nThe wombat digs too.\n');
    await workspace.ingest();
    await workspace.write('animals.md', '# Animals\n\nThe pangolin rolls into a ball.\n');

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report).toEqual({ ...emptyReport(), updated: ['animals.md'], unchanged: ['other.md'] });
    expect(await workspace.searchDocIds('pangolin')).toEqual(['animals.md']);
    expect(await workspace.searchDocIds('aardvark')).toEqual([]);
    const document = await workspace.store.getDocument(KB_ID, 'animals.md');
    expect(document?.chunkCount).toBe(1);
  });

  test('file deleted from the folder: reported removed on the next ingest of that folder and gone from search', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const doomed = await workspace.write('nested/doomed.md', '# Doomed\n\nThe quokka smiles.\n');
    await workspace.write('kept.md', '# Kept\n\nThe wombat stays.\n');
    await workspace.ingest();
    await unlink(doomed);

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report).toEqual({ ...emptyReport(), unchanged: ['kept.md'], removed: ['nested/doomed.md'] });
    expect(await workspace.store.getDocument(KB_ID, 'nested/doomed.md')).toBeUndefined();
    expect(await workspace.searchDocIds('quokka')).toEqual([]);
    expect(await workspace.searchDocIds('wombat')).toEqual(['kept.md']);
  });

  test('files of another folder: not removed by the ingest of a different folder', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('first/a.md', '# A\n\nThe heron fishes.\n');
    await workspace.write('second/b.md', '# B\n\nThe egret wades.\n');
    await workspace.ingest({ paths: [join(workspace.sources, 'first')] });
    await workspace.ingest({ paths: [join(workspace.sources, 'second')] });

    // Act
    const report = await workspace.ingest({ paths: [join(workspace.sources, 'second')] });

    // Assert
    expect(report).toEqual({ ...emptyReport(), unchanged: ['b.md'] });
    expect(await workspace.searchDocIds('heron')).toEqual(['a.md']);
  });

  test('last file deleted from the folder: reported removed on the next ingest of that folder', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const only = await workspace.write('only.md', '# Only\n\nThe narwhal is alone.\n');
    await workspace.ingest();
    await unlink(only);

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report).toEqual({ ...emptyReport(), removed: ['only.md'] });
    expect(await workspace.searchDocIds('narwhal')).toEqual([]);
  });

  test.each<[string, Partial<IngestOptions>, { visibility: Visibility; quotable: boolean }]>([
    ['visibility', { visibility: 'workspace' }, { visibility: 'workspace', quotable: true }],
    ['readers', { visibility: 'public', readers: ['READER'] }, { visibility: 'public', quotable: true }],
    ['quotable', { quotable: false }, { visibility: 'public', quotable: false }],
  ])('unchanged files ingested with a different %s: reported updated and stored with the new access', async (_option, change, expected) => {
    // Arrange
    const workspace = await openWorkspace();
    const reader = await workspace.store.createUser({ email: 'reader@example.com', name: 'Reader' });
    await workspace.write('a.md', '# A\n\nThe falcon hunts.\n');
    await workspace.write('b/c.md', '# C\n\nThe falcon nests.\n');
    await workspace.ingest();
    const readers = change.readers?.map((id) => (id === 'READER' ? reader.id : id));

    // Act
    const report = await workspace.ingest(readers ? { ...change, readers } : change);

    // Assert
    expect({ ...report, updated: [...report.updated].sort() }).toEqual({ ...emptyReport(), updated: ['a.md', 'b/c.md'] });
    const document = await workspace.store.getDocument(KB_ID, 'a.md');
    expect(document).toMatchObject({ ...expected, readers: readers ?? [] });
  });

  test('file with invalid UTF-8 bytes among good ones: reported failed by path, the others ingested', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const badPath = await workspace.write('bad.md', INVALID_UTF8);
    await workspace.write('good.md', '# Good\n\nThe heron is well encoded.\n');

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report).toEqual({
      ...emptyReport(),
      created: ['good.md'],
      failed: [{ docId: 'bad.md', path: badPath, reason: expect.stringMatching(/UTF-8/) }],
    });
    expect(await workspace.store.getDocument(KB_ID, 'bad.md')).toBeUndefined();
    expect(await workspace.searchDocIds('heron')).toEqual(['good.md']);
  });

  test('previously ingested file rewritten with invalid UTF-8: reported failed, its previous version still answers searches', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const path = await workspace.write('animals.md', '# Animals\n\nThe aardvark digs burrows.\n');
    await workspace.ingest();
    const before = await workspace.store.getDocument(KB_ID, 'animals.md');
    await workspace.write('animals.md', INVALID_UTF8);

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report).toEqual({
      ...emptyReport(),
      failed: [{ docId: 'animals.md', path, reason: expect.stringMatching(/UTF-8/) }],
    });
    expect(await workspace.store.getDocument(KB_ID, 'animals.md')).toEqual(before);
    expect(await workspace.searchDocIds('aardvark')).toEqual(['animals.md']);
  });

  test('pages with headings, comments or front matter only: skipped with a warning, not failed, nothing stored', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const path = await workspace.write('empty.md', '# Just a title\n\n## And a section\n\n<!-- a comment -->\n');
    await workspace.write('blank.md', '');
    const index = await workspace.write('storage/_index.md', '---\ntitle: "Storage"\nweight: 70\ndescription: >\n  Ways to store data.\n---\n');

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report.skipped).toEqual([
      { docId: 'blank.md', path: join(workspace.sources, 'blank.md'), reason: 'The file has no text to index' },
      { docId: 'empty.md', path, reason: 'The file has no text to index' },
      { docId: 'storage/_index.md', path: index, reason: 'The file has no text to index' },
    ]);
    expect(report.failed).toEqual([]);
    expect(report.created).toEqual([]);
    expect(await workspace.store.listDocuments(KB_ID)).toEqual([]);
  });

  test('a draft page: skipped with a note, and its earlier published version removed', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('plan.md', '# Plan\n\nThe heron fishes at dawn.\n');
    await workspace.ingest();
    const path = await workspace.write('plan.md', '---\ntitle: Plan\ndraft: true\n---\nThe heron fishes at dawn.\n');

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report.skipped).toEqual([{ docId: 'plan.md', path, reason: 'The page is a draft (draft: true in its front matter)' }]);
    expect(report.removed).toEqual(['plan.md']);
    expect(await workspace.searchDocIds('heron dawn')).toEqual([]);
  });

  test('front matter that does not parse: failed naming the line, the earlier version kept', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('guide.md', '# Guide\n\nThe heron fishes.\n');
    await workspace.ingest();
    const path = await workspace.write('guide.md', '---\ntitle: [Guide\n---\nThe heron fishes.\n');

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report.failed).toEqual([{ docId: 'guide.md', path, reason: expect.stringMatching(/^The YAML front matter does not parse \(line \d\)/) }]);
    expect((await workspace.store.getDocument(KB_ID, 'guide.md'))?.title).toBe('Guide');
  });

  test('titles: front matter title, then linkTitle, then first heading, then a readable file or folder name', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('a.md', '---\ntitle: Volumes\nlinkTitle: Vols\n---\n# Heading\n\nText a.\n');
    await workspace.write('b.md', '+++\nlinkTitle = "Short"\n+++\n# Heading\n\nText b.\n');
    await workspace.write('c.md', '# Heading C\n\nText c.\n');
    await workspace.write('pod-lifecycle.md', 'Text d.\n');
    await workspace.write('storage/_index.md', 'Text e.\n');

    // Act
    await workspace.ingest();

    // Assert
    const titles = Object.fromEntries((await workspace.store.listDocuments(KB_ID)).map((document) => [document.docId, document.title]));
    expect(titles).toEqual({ 'a.md': 'Volumes', 'b.md': 'Short', 'c.md': 'Heading C', 'pod-lifecycle.md': 'Pod lifecycle', 'storage/_index.md': 'Storage' });
  });

  test('a knowledge base with a site: page URLs, description and section anchors stored and found on passages', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.store.updateKnowledgeBase(KB_ID, { baseUrl: 'https://docs.example.com/docs/' });
    await workspace.write('concepts/storage/_index.md', '---\ntitle: Storage\n---\nStorage overview of herons.\n');
    await workspace.write(
      'concepts/storage/volumes.md',
      '---\ntitle: Volumes\ndescription: Ways to give Pods storage.\n---\n## Why volumes are important\n\nHerons keep volumes.\n',
    );
    await workspace.write('moved.md', '---\nurl: /elsewhere/moved/\n---\nHerons moved.\n');
    await workspace.write('renamed.md', '---\nslug: new-name\n---\nHerons renamed.\n');

    // Act
    await workspace.ingest();

    // Assert
    const urls = Object.fromEntries((await workspace.store.listDocuments(KB_ID)).map((document) => [document.docId, document.url]));
    expect(urls).toEqual({
      'concepts/storage/_index.md': 'https://docs.example.com/docs/concepts/storage/',
      'concepts/storage/volumes.md': 'https://docs.example.com/docs/concepts/storage/volumes/',
      'moved.md': 'https://docs.example.com/elsewhere/moved/',
      'renamed.md': 'https://docs.example.com/docs/new-name/',
    });
    const { passages } = await createLexicalRetriever(workspace.store).search({
      reach: { kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'] },
      terms: analyze('volumes herons'),
      topK: 1,
    });
    expect(passages[0]).toMatchObject({
      docId: 'concepts/storage/volumes.md',
      title: 'Volumes',
      description: 'Ways to give Pods storage.',
      url: 'https://docs.example.com/docs/concepts/storage/volumes/',
      anchor: 'why-volumes-are-important',
    });
  });

  test('a PDF among the pages: its title, sections and page anchors stored, its text searchable, its URL the file itself; a PDF without text is skipped, a file named .pdf that is not one fails by path', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.store.updateKnowledgeBase(KB_ID, { baseUrl: 'https://docs.example.com/docs/' });
    await workspace.write('guide.md', '# Guide\n\nHerons fish at dawn.\n');
    await workspace.write(
      'manuals/router.pdf',
      Buffer.from(
        await makePdf([
          [{ text: 'Router Manual', size: 24 }, { text: 'Resetting', size: 16 }, { text: 'Hold the reset button for ten seconds.' }],
          [{ text: 'Wi-Fi channels', size: 16 }, { text: 'Pick the channel with the fewest neighbouring herons.' }],
        ]),
      ),
    );
    const notPdf = await workspace.write('scan.pdf', '# This is markdown\n');
    // A scan: pages without a text layer.
    const blank = await workspace.write('blank.pdf', Buffer.from(await makePdf([[], []])));

    // Act
    const report = await workspace.ingest();

    // Assert
    expect(report.created).toEqual(['guide.md', 'manuals/router.pdf']);
    expect(report.failed).toEqual([{ docId: 'scan.pdf', path: notPdf, reason: expect.stringMatching(/^The file is not a PDF that can be read/) }]);
    expect(report.skipped).toEqual([{ docId: 'blank.pdf', path: blank, reason: 'The file has no text to index' }]);
    const { passages } = await createLexicalRetriever(workspace.store).search({
      reach: { kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'] },
      terms: analyze('which wifi channel should I pick'),
      topK: 1,
    });
    expect(passages[0]).toMatchObject({
      docId: 'manuals/router.pdf',
      title: 'Router Manual',
      headingPath: ['Router Manual', 'Wi-Fi channels'],
      text: 'Pick the channel with the fewest neighbouring herons.',
      url: 'https://docs.example.com/docs/manuals/router.pdf',
      anchor: 'page=2',
    });
  });

  test('non-existent path after a valid folder: throws naming the path, nothing written', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('good.md', '# Good\n\nThe heron fishes.\n');
    const missing = join(workspace.sources, 'no-such-folder');

    // Act
    const ingesting = workspace.ingest({ paths: [workspace.sources, missing] });

    // Assert
    await expect(ingesting).rejects.toThrow(missing);
    expect(await workspace.store.listDocuments(KB_ID)).toEqual([]);
  });

  test('unsupported file given directly: throws naming the file, nothing written', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('good.md', '# Good\n\nThe heron fishes.\n');
    const document = await workspace.write('manual.docx', 'not a format we read');

    // Act
    const ingesting = workspace.ingest({ paths: [join(workspace.sources, 'good.md'), document] });

    // Assert
    await expect(ingesting).rejects.toThrow(document);
    expect(await workspace.store.listDocuments(KB_ID)).toEqual([]);
  });

  test('single nested file given directly: doc id is its file name, no source folder recorded', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const path = await workspace.write('deep/er/setup-guide.md', '# Setup\n\nThe wombat sets things up.\n');

    // Act
    const report = await workspace.ingest({ paths: [path] });

    // Assert
    expect(report).toEqual({ ...emptyReport(), created: ['setup-guide.md'] });
    const document = await workspace.store.getDocument(KB_ID, 'setup-guide.md');
    expect(document?.title).toBe('Setup');
    expect(document?.sourceRoot).toBeUndefined();
    expect(await workspace.searchDocIds('wombat')).toEqual(['setup-guide.md']);
  });

  test(`a folder of more pages than ${PARALLEL_PREPARE_MIN_DOCUMENTS} (prepared on worker threads, written in batches of ${INGEST_BATCH_DOCUMENTS}): each page reported, in order, failures and skips included, and searchable`, async () => {
    // Arrange
    const workspace = await openWorkspace();
    const pages = PARALLEL_PREPARE_MIN_DOCUMENTS + INGEST_BATCH_DOCUMENTS / 2;
    const names = Array.from({ length: pages }, (_, index) => `page-${String(index).padStart(3, '0')}.md`);
    for (const [index, name] of names.entries()) {
      await workspace.write(name, `---\ntitle: Bird ${index}\n---\nThe ${index}th bird is called zz${index}bird.\n`);
    }
    const broken = await workspace.write(names[10]!, '---\ntitle: [Broken\n---\nText.\n');
    await workspace.write(names[20]!, '---\ntitle: Draft\ndraft: true\n---\nDraft text.\n');
    const invalid = await workspace.write(names[pages - 1]!, INVALID_UTF8);
    const pdfName = names[30]!.replace(/\.md$/, '.pdf');
    await unlink(join(workspace.sources, names[30]!));
    await workspace.write(pdfName, Buffer.from(await makePdf([[{ text: 'Bird 30', size: 20 }, { text: 'The 30th bird is called zz30bird.' }]])));
    names[30] = pdfName;
    const progress: number[] = [];

    // Act
    const report = await workspace.ingest({ onProgress: ({ done }) => progress.push(done) });

    // Assert
    const written = names.filter((_, index) => ![10, 20, pages - 1].includes(index));
    expect(report.created).toEqual(written);
    expect(report.failed).toEqual([
      { docId: names[10], path: broken, reason: expect.stringMatching(/front matter does not parse/) },
      { docId: names[pages - 1], path: invalid, reason: 'The file is not valid UTF-8 text' },
    ]);
    expect(report.skipped.map((skip) => skip.docId)).toEqual([names[20]]);
    expect(progress).toEqual(names.map((_, index) => index + 1));
    expect(await workspace.searchDocIds(`zz${pages - 2}bird`)).toEqual([names[pages - 2]]);
    expect(await workspace.searchDocIds('zz30bird')).toEqual([pdfName]);
    expect((await workspace.store.getDocument(KB_ID, names[0]!))?.title).toBe('Bird 0');
    expect((await workspace.store.getDocument(KB_ID, pdfName))?.title).toBe('Bird 30');
    expect((await workspace.ingest()).unchanged).toEqual(written);
  });

  test('progress callback: called once per file, failed ones included, with done counting up to total', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.write('a.md', '# A\n\nThe heron fishes.\n');
    await workspace.write('b.md', INVALID_UTF8);
    await workspace.write('c/d.txt', 'The egret wades.\n');
    const calls: { done: number; total: number; docId: string }[] = [];

    // Act
    await workspace.ingest({ onProgress: (progress) => calls.push({ ...progress }) });

    // Assert
    expect(calls).toEqual([
      { done: 1, total: 3, docId: 'a.md' },
      { done: 2, total: 3, docId: 'b.md' },
      { done: 3, total: 3, docId: 'c/d.txt' },
    ]);
  });
});
