import { describe, expect, test } from 'vitest';
import type { AnswerEvent } from './answer-events.ts';
import { ABSTENTION_MESSAGE } from './abstention.ts';
import { createAnswerEngine, questionTerms } from './answer-engine.ts';
import { composeExtractiveAnswer } from './extractive/extractive-answerer.ts';
import { rerankPassages } from './ranking/passage-rerank.ts';
import { MAX_QUERY_TERMS } from '../retrieval/bm25f.ts';
import { DEFAULT_TOP_K, RERANK_DEPTH } from '../retrieval/retrieval-plan.ts';
import type { RetrievalQuery, Retriever, SearchResult } from '../retrieval/retriever.ts';
import type { FaqPair, Reach, ScoredPassage } from '../store/store.ts';
import type { EngineStore } from './answer-engine.ts';

const REACH: Reach = { kbId: 'node-docs', userId: 'user-1', visibilities: ['public'] };

function passageOf(chunkId: number, docId: string, headingPath: string[], text: string, score = 5): ScoredPassage {
  return {
    chunkId,
    kbId: REACH.kbId,
    docId,
    title: headingPath[0] ?? docId,
    headingPath,
    text,
    quotable: true,
    contentHash: `hash-${docId}`,
    score,
  };
}

/** What the fake store holds: curated pairs, one canned search result, and the passages inside the reach. */
interface FakeStoreContent {
  faq?: FaqPair[];
  search?: SearchResult;
  /** Passages inside the reach, looked up by `passagesOf`; anything else lies outside it. */
  reachable?: ScoredPassage[];
  /** Called at the start of each store call the engine makes, with the method name. */
  onCall?: (method: 'listFaq' | 'search' | 'passagesOf') => void;
}

/** The fake as both the engine's store and its retriever. */
function sourcesOf(fake: EngineStore & Retriever): { store: EngineStore; retriever: Retriever } {
  return { store: fake, retriever: fake };
}

/** A fake store and retriever implementing only what the engine calls; it records search queries. */
function fakeStore(content: FakeStoreContent): EngineStore & Retriever & { searches: RetrievalQuery[] } {
  const searches: RetrievalQuery[] = [];
  return {
    searches,
    async listFaq() {
      content.onCall?.('listFaq');
      return content.faq ?? [];
    },
    async search(query) {
      content.onCall?.('search');
      searches.push(query);
      return content.search ?? { passages: [], passageCount: 0, documentFrequencies: {} };
    },
    async countPassages(reach, docId) {
      expect(reach).toBe(REACH);
      const held = [...(content.search?.passages ?? []), ...(content.reachable ?? [])].filter((passage) => passage.docId === docId);
      return new Set(held.map((passage) => passage.chunkId)).size;
    },
    async passagesOf(reach, docId, heading) {
      content.onCall?.('passagesOf');
      expect(reach).toBe(REACH);
      return (content.reachable ?? []).filter(
        (passage) => passage.docId === docId && (heading === undefined || passage.headingPath.includes(heading)),
      );
    },
  };
}

/** An engine over a fake store holding one curated pair, "How can I create a directory?" answered with `answer`, citing a passage of `fs.md`. */
function curatedDirectoryAnswer(answer: string) {
  const source = passageOf(7, 'fs.md', ['File system', 'Directories'], 'Directories are created with mkdir.');
  const pair: FaqPair = { question: 'How can I create a directory?', answer, sources: [{ docId: 'fs.md', heading: 'Directories' }] };
  const store = fakeStore({ faq: [pair], reachable: [source] });
  return { source, pair, store, engine: createAnswerEngine({ store, retriever: store }) };
}

async function eventsOf(generator: AsyncGenerator<AnswerEvent>): Promise<AnswerEvent[]> {
  const events: AnswerEvent[] = [];
  for await (const event of generator) events.push(event);
  return events;
}

function textOf(events: AnswerEvent[]): string {
  return events.map((event) => (event.type === 'token' ? event.text : '')).join('');
}

/** A one-passage search result answering "How do I create a directory?" well. */
function directorySearch(): { passage: ScoredPassage; search: SearchResult } {
  const passage = passageOf(
    1,
    'fs.md',
    ['File system', '`fs.mkdir(path[, options])`'],
    'Asynchronously creates a directory at the given path. The callback gets an error if it fails.',
  );
  return { passage, search: { passages: [passage], passageCount: 10, documentFrequencies: { creat: 2, directori: 2 } } };
}

describe('questionTerms', () => {
  test('question with repeated words and function words: distinct stemmed terms in order', () => {
    expect(questionTerms('How do I create a directory, or create directories?')).toEqual(['creat', 'directori']);
  });

  test('very long question: at most MAX_QUERY_TERMS terms', () => {
    const question = Array.from({ length: MAX_QUERY_TERMS + 10 }, (_, position) => `word${position}`).join(' ');

    expect(questionTerms(question)).toHaveLength(MAX_QUERY_TERMS);
  });
});

describe('AnswerEngine.answer', () => {
  test('well-supported question: citations, tokens, done(generated) last and exactly once', async () => {
    const { passage, search } = directorySearch();
    const store = fakeStore({ search });
    const engine = createAnswerEngine({ store, retriever: store });

    const events = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    expect(events[0]).toEqual({ type: 'citations', citations: [{ index: 1, passage }] });
    expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
    expect(events.at(-1)).toEqual({ type: 'done', abstained: false, provenance: 'generated' });
    // The passage documents an API: its signature leads, then the description (two sentences: the first is short).
    expect(textOf(events)).toBe(
      '`fs.mkdir(path[, options])`: Asynchronously creates a directory at the given path. The callback gets an error if it fails [1].',
    );
  });

  test('how-question answered from a later passage of an API section: description and example read from the store\'s section, each cited', async () => {
    const heading = ['File system', '`fs.mkdir(path[, options])`'];
    const description = passageOf(11, 'fs.md', heading, 'Asynchronously creates a directory.');
    const retrieved = passageOf(12, 'fs.md', heading, 'A `recursive` option creates every missing parent directory too.');
    const example = passageOf(13, 'fs.md', heading, "```\nmkdir('a/b', { recursive: true }, done);\n```");
    const elsewhere = passageOf(14, 'fs.md', [...heading, 'Caveats'], 'On Windows, a directory cannot be created twice.');
    const search = { passages: [retrieved], passageCount: 10, documentFrequencies: { creat: 2, directori: 2, parent: 2 } };
    const store = fakeStore({ search, reachable: [description, retrieved, example, elsewhere] });

    const events = await eventsOf(createAnswerEngine({ store, retriever: store }).answer({ question: 'How do I create a directory with its parents?', reach: REACH }));

    expect(textOf(events)).toBe(
      '`fs.mkdir(path[, options])`: Asynchronously creates a directory [1]. A `recursive` option creates every missing parent directory too [2].' +
        "\n\nExample [3]:\n\n```\nmkdir('a/b', { recursive: true }, done);\n```",
    );
    expect(events[0]).toEqual({
      type: 'citations',
      citations: [
        { index: 1, passage: description },
        { index: 2, passage: retrieved },
        { index: 3, passage: example },
      ],
    });
  });

  test('answer from a worded section to a question that is not a how-question: the store is not asked for the section', async () => {
    const passage = passageOf(1, 'fs.md', ['File system', 'Directories'], 'A directory holds files and other directories.');
    const calls: string[] = [];
    const store = fakeStore({
      search: { passages: [passage], passageCount: 10, documentFrequencies: { directori: 2, hold: 2, file: 2 } },
      onCall: (method) => calls.push(method),
    });

    const events = await eventsOf(createAnswerEngine({ store, retriever: store }).answer({ question: 'What does a directory hold?', reach: REACH }));

    expect(textOf(events)).toBe('A directory holds files and other directories [1].');
    expect(calls).not.toContain('passagesOf');
  });

  test('how-question about a property of a class: the class description follows, read from the store', async () => {
    const size = passageOf(2, 'fs.md', ['File system', 'Class: `fs.Stats`', '`stats.size`'], 'The size of the file in bytes.');
    const owner = passageOf(1, 'fs.md', ['File system', 'Class: `fs.Stats`'], 'Objects returned from `fs.stat()` are of this type.');
    const search = { passages: [size], passageCount: 10, documentFrequencies: { size: 2, file: 2, byte: 2 } };
    const store = fakeStore({ search, reachable: [owner, size] });

    const events = await eventsOf(createAnswerEngine({ store, retriever: store }).answer({ question: 'How do I get the size of a file in bytes?', reach: REACH }));

    expect(textOf(events)).toBe(
      '`stats.size`: The size of the file in bytes [1]. Class: `fs.Stats`: Objects returned from `fs.stat()` are of this type [2].',
    );
  });

  test('extractive answer: token texts concatenate to exactly the extractive answer text', async () => {
    const { search } = directorySearch();
    const question = 'How do I create a directory?';
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ search })) });

    const events = await eventsOf(engine.answer({ question, reach: REACH }));

    const terms = questionTerms(question);
    const expected = composeExtractiveAnswer(terms, rerankPassages(terms, search));
    expect(textOf(events)).toBe(expected?.text);
    expect(events.filter((event) => event.type === 'token').length).toBeGreaterThan(1);
  });

  test('no top-k given: the store is searched with the question terms and the reach, at least RERANK_DEPTH deep', async () => {
    const { search } = directorySearch();
    const store = fakeStore({ search });

    await eventsOf(createAnswerEngine({ store, retriever: store }).answer({ question: 'How do I create a directory?', reach: REACH }));

    // The question as asked goes along too, for a dense retriever to embed.
    expect(store.searches).toEqual([{ reach: REACH, terms: ['creat', 'directori'], topK: Math.max(DEFAULT_TOP_K, RERANK_DEPTH), question: 'How do I create a directory?' }]);
  });

  test('top-k given: BM25 retrieves RERANK_DEPTH, and only the first top-k after re-ranking are quoted', async () => {
    // BM25 puts a weak passage first; re-ranking puts the passage holding
    // "create a directory" side by side first, and top_k 1 keeps only it.
    const weak = passageOf(1, 'os.md', ['OS'], 'Directory listings are created on demand. Returns a string.', 9);
    const strong = passageOf(2, 'fs.md', ['File system'], 'Use mkdir to create a directory at the given path.', 8);
    const store = fakeStore({ search: { passages: [weak, strong], passageCount: 10, documentFrequencies: { creat: 2, directori: 2 } } });

    const events = await eventsOf(createAnswerEngine({ store, retriever: store }).answer({ question: 'Create a directory', reach: REACH, topK: 1 }));

    expect(store.searches[0]?.topK).toBe(RERANK_DEPTH);
    expect(events[0]).toEqual({ type: 'citations', citations: [{ index: 1, passage: strong }] });
    expect(textOf(events)).toBe('Use mkdir to create a directory at the given path [1].');
  });

  test('nothing retrieved: abstain with the abstention message, then done(abstained)', async () => {
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({})) });

    const events = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    expect(events).toEqual([
      { type: 'abstain', answer: ABSTENTION_MESSAGE },
      { type: 'done', abstained: true, provenance: 'abstained' },
    ]);
  });

  test('question mostly about terms the knowledge base lacks: abstains, no citations and no tokens', async () => {
    // BM25 of a passage matching "creat" and "directori" once each at average length: 2 × idf(N 10, df 2).
    const { passage: found } = directorySearch();
    const passage = { ...found, score: 2 * Math.log(1 + (10 - 2 + 0.5) / (2 + 0.5)) };
    const search: SearchResult = {
      passages: [passage],
      passageCount: 10,
      documentFrequencies: { creat: 2, directori: 2, kubernet: 0 },
    };
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ search })) });

    const events = await eventsOf(engine.answer({ question: 'How do I create a Kubernetes directory?', reach: REACH }));

    expect(events).toEqual([
      { type: 'abstain', answer: ABSTENTION_MESSAGE },
      { type: 'done', abstained: true, provenance: 'abstained' },
    ]);
  });

  test('abstaining while pages came near in meaning: the refusal names up to three of them by their nearest section, linked to it, with what each section says it is about, and offers follow-ups, citing nothing', async () => {
    const near = (chunkId: number, docId: string, headingPath: string[], similarity: number, anchor?: string, text = `Text of ${headingPath.join(' ')}.`): ScoredPassage => ({
      ...passageOf(chunkId, docId, headingPath, text),
      url: `https://docs.example.com/${docId.replace('.md', '')}`,
      ...(anchor && { anchor }),
      similarity,
    });
    const search: SearchResult = {
      passages: [
        near(1, 'fs.md', ['File system', '`fs.mkdir(path[, options], callback)`'], 0.58, 'fsmkdirpath-options-callback'),
        near(2, 'fs.md', ['File system', '`fs.readdir(path[, options], callback)`'], 0.62, 'fsreaddirpath-options-callback', 'For example, on POSIX:'),
        near(3, 'fs.md', ['File system', '`fs.readdir(path[, options], callback)`'], 0.6, 'fsreaddirpath-options-callback'),
        near(4, 'path.md', ['Path [module]'], 0.51),
        { ...near(7, 'secrets.md', ['Secrets', 'Rotating keys'], 0.5), quotable: false },
        near(5, 'modules.md', ['Modules', '`__dirname`'], 0.47, 'dirname', '- {string}'),
        near(6, 'http.md', ['HTTP', '`http.get(url)`'], 0.2, 'httpget'),
      ],
      passageCount: 10,
      documentFrequencies: {},
    };
    // The nearest passage of fs.readdir's section is a later one: the sentence that describes the section is read from its first.
    const readdirStart = passageOf(0, 'fs.md', ['File system', '`fs.readdir(path[, options], callback)`'], '- `path` {string}\n\nReads the contents of a directory. The callback gets two arguments.');
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ search, reachable: [readdirStart] })), abstentionThreshold: 1 });

    const events = await eventsOf(engine.answer({ question: 'How do I list the files in my folders?', reach: REACH }));

    // Most similar first, one entry per page (its nearest section), three at most; text before a page's first heading links the page;
    // each with the sentence that describes its section, but a document that is not quotable.
    expect(events[0]).toEqual({
      type: 'abstain',
      answer:
        `${ABSTENTION_MESSAGE}\n\nThese sections may be related:\n` +
        '- [File system › fs.readdir(path\\[, options\\], callback)](https://docs.example.com/fs#fsreaddirpath-options-callback): Reads the contents of a directory. The callback gets two arguments.\n' +
        '- [Path \\[module\\]](https://docs.example.com/path): Text of Path [module].\n' +
        '- [Secrets › Rotating keys](https://docs.example.com/secrets)',
    });
    expect(events.some((event) => event.type === 'citations')).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'done', abstained: true, provenance: 'abstained' });
    const suggestions = events.find((event) => event.type === 'suggestions');
    expect(suggestions?.type === 'suggestions' && suggestions.questions.length).toBeGreaterThan(0);
  });

  test('abstaining with nothing near in meaning (or no dense retrieval): the plain refusal', async () => {
    const far = { ...passageOf(1, 'fs.md', ['File system'], 'Text.'), similarity: 0.3 };
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ search: { passages: [far], passageCount: 10, documentFrequencies: {} } })), abstentionThreshold: 1 });

    const events = await eventsOf(engine.answer({ question: 'What is the capital of Australia?', reach: REACH }));

    expect(events).toEqual([
      { type: 'abstain', answer: ABSTENTION_MESSAGE },
      { type: 'done', abstained: true, provenance: 'abstained' },
    ]);
  });

  test('abstention threshold set above the evidence of a good answer: abstains', async () => {
    const { search } = directorySearch();
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ search })), abstentionThreshold: 1 });

    const events = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    expect(events.map((event) => event.type)).toEqual(['abstain', 'done']);
  });

  test('answer asked for whole (the JSON endpoint) and word by word (a stream): the same text, one token against one per word', async () => {
    const { engine } = curatedDirectoryAnswer('  Call `fs.mkdir()` with\tthe path [1].\n\n');

    const whole = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH, wholeText: true }));
    const words = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    expect(textOf(whole)).toBe('  Call `fs.mkdir()` with\tthe path [1].');
    expect(textOf(words)).toBe(textOf(whole));
    expect(whole.filter((event) => event.type === 'token')).toHaveLength(1);
    expect(words.filter((event) => event.type === 'token')).toHaveLength(6);
  });

  test('curated pair with the same content words: answered from it, provenance qa_shortcut, its sources cited, no search', async () => {
    const { source, pair, store, engine } = curatedDirectoryAnswer('Call `fs.mkdir()` with the path [1].');

    const events = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    expect(events[0]).toEqual({ type: 'citations', citations: [{ index: 1, passage: source }] });
    expect(textOf(events)).toBe(pair.answer);
    expect(events.at(-1)).toEqual({ type: 'done', abstained: false, provenance: 'qa_shortcut' });
    expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
    expect(store.searches).toEqual([]);
  });

  test('curated pair with two sources: cited as [1] and [2] in source order', async () => {
    const first = passageOf(7, 'fs.md', ['File system', 'Directories'], 'Directories.');
    const second = passageOf(8, 'path.md', ['Path', 'Joining'], 'Joining paths.');
    const pair: FaqPair = {
      question: 'Create a directory',
      answer: 'Use `fs.mkdir()` [1] with a joined path [2].',
      sources: [{ docId: 'fs.md' }, { docId: 'path.md' }],
    };
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ faq: [pair], reachable: [first, second] })) });

    const events = await eventsOf(engine.answer({ question: 'Create a directory', reach: REACH }));

    expect(events[0]).toEqual({
      type: 'citations',
      citations: [
        { index: 1, passage: first },
        { index: 2, passage: second },
      ],
    });
  });

  test('matching curated pair citing a document outside the reach: skipped, the question is answered by retrieval', async () => {
    const { passage, search } = directorySearch();
    const hidden: FaqPair = {
      question: 'How do I create a directory?',
      answer: 'Internal runbook answer [1].',
      sources: [{ docId: 'internal/runbook.md' }],
    };
    const store = fakeStore({ faq: [hidden], search, reachable: [passage] });
    const engine = createAnswerEngine({ store, retriever: store });

    const events = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    expect(events.at(-1)).toEqual({ type: 'done', abstained: false, provenance: 'generated' });
    expect(textOf(events)).not.toContain('Internal runbook');
    expect(JSON.stringify(events)).not.toContain('internal/runbook.md');
    expect(store.searches).toHaveLength(1);
  });

  test('best curated pair outside the reach, next one close enough and inside: the next one answers', async () => {
    const source = passageOf(7, 'fs.md', ['File system', 'Directories'], 'Directories are created with mkdir.');
    const hidden: FaqPair = {
      question: 'How do I create a directory?',
      answer: 'Internal runbook answer [1].',
      sources: [{ docId: 'internal/runbook.md' }],
    };
    // {creat, directori} against {creat, directori, recurs}: 2*2/5 = 0.8, exactly SHORTCUT_SIMILARITY.
    const visible: FaqPair = {
      question: 'How do I create a directory recursively?',
      answer: 'Pass `recursive: true` [1].',
      sources: [{ docId: 'fs.md' }],
    };
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ faq: [hidden, visible], reachable: [source] })) });

    const events = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    expect(textOf(events)).toBe(visible.answer);
    expect(events.at(-1)).toEqual({ type: 'done', abstained: false, provenance: 'qa_shortcut' });
    expect(JSON.stringify(events)).not.toContain('Internal runbook');
  });

  test('curated pair below SHORTCUT_SIMILARITY: not used to answer, offered as a follow-up instead', async () => {
    const { passage, search } = directorySearch();
    const other = passageOf(9, 'fs.md', ['File system', 'Removing'], 'Directories are removed with rmdir.');
    // {creat, directori} against {remov, directori}: 0.5.
    const related: FaqPair = {
      question: 'How do I remove a directory?',
      answer: 'Use `fs.rm()` [1].',
      sources: [{ docId: 'fs.md', heading: 'Removing' }],
    };
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ faq: [related], search, reachable: [passage, other] })) });

    const events = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    expect(events.at(-1)).toEqual({ type: 'done', abstained: false, provenance: 'generated' });
    expect(textOf(events)).not.toContain('fs.rm');
    expect(events).toContainEqual({ type: 'suggestions', questions: ['How do I remove a directory?'] });
  });

  test('related curated pair citing a document outside the reach: not suggested', async () => {
    const { passage, search } = directorySearch();
    const related: FaqPair = {
      question: 'How do I remove a directory?',
      answer: 'See the runbook [1].',
      sources: [{ docId: 'internal/runbook.md' }],
    };
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ faq: [related], search, reachable: [passage] })) });

    const events = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    expect(events.some((event) => event.type === 'suggestions')).toBe(false);
  });

  test('suggestions event: comes after the tokens and before done', async () => {
    const { search } = directorySearch();
    const uncited = passageOf(2, 'fs.md', ['File system', 'File modes'], 'Unrelated text about modes.', 1);
    const withHeading: SearchResult = { ...search, passages: [...search.passages, uncited] };
    const engine = createAnswerEngine({ ...sourcesOf(fakeStore({ search: withHeading })) });

    const events = await eventsOf(engine.answer({ question: 'How do I create a directory?', reach: REACH }));

    const types = events.map((event) => event.type);
    expect(types.at(-2)).toBe('suggestions');
    expect(types.lastIndexOf('token')).toBeLessThan(types.indexOf('suggestions'));
    expect(events.at(-2)).toEqual({ type: 'suggestions', questions: ['What are File modes?'] });
  });

  test('signal aborted before asking: no events at all, in particular no done', async () => {
    const { search } = directorySearch();
    const store = fakeStore({ search });
    const controller = new AbortController();
    controller.abort();

    const events = await eventsOf(
      createAnswerEngine({ store, retriever: store }).answer({ question: 'How do I create a directory?', reach: REACH, signal: controller.signal }),
    );

    expect(events).toEqual([]);
    expect(store.searches).toEqual([]);
  });

  test('asker gone while the curated pairs load: stops before retrieval, emits nothing', async () => {
    const { search } = directorySearch();
    const controller = new AbortController();
    const store = fakeStore({ search, onCall: (method) => method === 'listFaq' && controller.abort() });

    const events = await eventsOf(
      createAnswerEngine({ store, retriever: store }).answer({ question: 'How do I create a directory?', reach: REACH, signal: controller.signal }),
    );

    expect(events).toEqual([]);
    expect(store.searches).toEqual([]);
  });

  test('asker gone during retrieval: emits nothing, in particular no done', async () => {
    const { search } = directorySearch();
    const controller = new AbortController();
    const store = fakeStore({ search, onCall: (method) => method === 'search' && controller.abort() });

    const events = await eventsOf(
      createAnswerEngine({ store, retriever: store }).answer({ question: 'How do I create a directory?', reach: REACH, signal: controller.signal }),
    );

    expect(events).toEqual([]);
  });

  test('store failing during retrieval: the error reaches the consumer, no done is emitted', async () => {
    const store = fakeStore({
      onCall: (method) => {
        if (method === 'search') throw new Error('database is locked');
      },
    });
    const events: AnswerEvent[] = [];

    const consume = async (): Promise<void> => {
      for await (const event of createAnswerEngine({ store, retriever: store }).answer({
        question: 'How do I create a directory?',
        reach: REACH,
      })) {
        events.push(event);
      }
    };

    await expect(consume()).rejects.toThrow('database is locked');
    expect(events.some((event) => event.type === 'done')).toBe(false);
  });
});
