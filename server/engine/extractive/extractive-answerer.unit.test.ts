import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { analyze } from '../../retrieval/analyzer.ts';
import { DEFAULT_ABSTENTION_THRESHOLD, evidenceScore } from '../ranking/evidence.ts';
import {
  CANDIDATE_PASSAGES,
  MAX_SENTENCES,
  QUESTION_LENGTH_SATURATION,
  composeExtractiveAnswer,
} from './extractive-answerer.ts';
import { phraseCoverage } from './evidence-features.ts';
import { otherPages, rerankPassages, type RerankedSearch } from '../ranking/passage-rerank.ts';
import type { ScoredPassage } from '../../store/store.ts';
import { findCitationMarkers } from '../../../protocol/citation-markers.ts';

/** A retrieved passage; only the fields the answerer reads matter. */
function passageOf(chunkId: number, text: string, score: number, headingPath = ['Guide', 'Overview']): ScoredPassage {
  return {
    chunkId,
    kbId: 'kb',
    docId: `doc-${chunkId}.md`,
    title: 'Guide',
    headingPath,
    text,
    quotable: true,
    contentHash: `hash-${chunkId}`,
    score,
  };
}

/**
 * A re-ranked search result, passages in the order given. Their relevance
 * (a share of the first's) is given, or defaults to each passage's BM25
 * score as a share of the first's, so the answerer's choices can be worked
 * out by hand without the re-ranking stage (tested in passage-rerank.test.ts).
 */
function searchOf(
  passages: ScoredPassage[],
  documentFrequencies: Record<string, number>,
  passageCount = 10,
  relevance: number[] = passages.map((passage) => passage.score / (passages[0]?.score ?? 1)),
  documentShare = 1,
): RerankedSearch {
  return { passages, passageCount, documentFrequencies, relevance, documentShare, otherPages: otherPages(passages) };
}

/** The `[n]` markers of an answer text, in order of appearance. */
function markersOf(text: string): number[] {
  return findCitationMarkers(text);
}

/** Lucene's IDF, written out so expected values are computed independently of the code under test. */
function idf(passageCount: number, documentFrequency: number): number {
  return Math.log(1 + (passageCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

describe('composeExtractiveAnswer', () => {
  test('no passages retrieved: undefined', () => {
    const answer = composeExtractiveAnswer(['creat'], searchOf([], { creat: 1 }));

    expect(answer).toBeUndefined();
  });

  test('no question terms: undefined', () => {
    const search = searchOf([passageOf(1, 'Creates a directory at the given path.', 5)], {});

    const answer = composeExtractiveAnswer([], search);

    expect(answer).toBeUndefined();
  });

  test('passages that are only fenced code: undefined (nothing quotable)', () => {
    const search = searchOf([passageOf(1, '```\ncreate(directory). Create directory.\n```', 5)], { creat: 1, directori: 1 });

    const answer = composeExtractiveAnswer(['creat', 'directori'], search);

    expect(answer).toBeUndefined();
  });

  test('passage with one matching sentence among others: that sentence alone, marker before the full stop', () => {
    const questionTerms = analyze('How do I create a directory?');
    const passage = passageOf(
      1,
      'Files can be read with a stream. Creates a new directory at the given path. The callback receives an error.',
      7.5,
    );

    const answer = composeExtractiveAnswer(questionTerms, searchOf([passage], { creat: 2, directori: 2 }));

    expect(questionTerms).toEqual(['creat', 'directori']);
    expect(answer?.text).toBe('Creates a new directory at the given path [1].');
    expect(answer?.cited).toEqual([passage]);
  });

  test('question fully covered by the best passage, no unknown terms: coverages 1, score share = BM25 / (Σ idf × (k1 + 1))', () => {
    const passage = passageOf(1, 'Creates a new directory at the given path.', 3);

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([passage], { creat: 2, directori: 2 }));

    // N = 10, df 2: idf = ln 4.4 each; k1 = 0.9.
    const normalizedScore = 3 / (2 * idf(10, 2) * 1.9);
    expect(answer?.features).toEqual({
      passageCoverage: 1,
      unknownShare: 0,
      normalizedScore: expect.closeTo(normalizedScore, 10),
      sentenceCoverage: 1,
      // "creat new directori": the question's pair is not side by side.
      phraseCoverage: 0,
      questionLength: 2 / QUESTION_LENGTH_SATURATION,
      documentShare: 1,
      // No other page retrieved.
      documentMargin: 1,
      // "Guide › Overview" names neither term.
      headingShare: 0,
      // Lexical retrieval alone: no dense evidence.
      similarity: 0,
      similarityMargin: 0,
      retrieverAgreement: 0,
      documentSimilarity: 0,
      documentSimilarityMargin: 0,
      distantUnknownShare: 0,
      sentenceSimilarity: 0,
    });
    expect(answer?.evidence).toBeCloseTo(evidenceScore(answer!.features), 12);
  });

  test("with dense retrieval: the dense features are the answering passage's - its similarity and margin over the other page, its page's, both retrievers' agreement, its best sentence's similarity", () => {
    const dense = (passage: ScoredPassage, similarity: number, documentSimilarity: number, sentenceSimilarity: number): ScoredPassage => ({
      ...passage,
      similarity,
      documentSimilarity,
      sentenceSimilarity,
    });
    const first = dense(passageOf(1, 'Creates a new directory at the given path.', 4), 0.7, 0.6, 0.8);
    const other = dense(passageOf(2, 'Creates a file.', 3), 0.5, 0.4, 0.9);

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([first, other], { creat: 2, directori: 2 }));

    expect(answer?.features).toMatchObject({
      similarity: 0.7,
      similarityMargin: expect.closeTo(0.2, 10),
      retrieverAgreement: 1,
      documentSimilarity: 0.6,
      documentSimilarityMargin: expect.closeTo(0.2, 10),
      // The other page's sentence is closer; the answering passage's is what counts.
      sentenceSimilarity: 0.8,
    });
    expect(answer?.evidence).toBeCloseTo(evidenceScore(answer!.features, 'hybrid'), 12);
  });

  test('with dense retrieval, of sentences sharing as few words with the question, the one closest in meaning is quoted, and its passage anchors the answer', () => {
    // "How long has my program been running?": the measure sentence shares both words, the uptime sentence one.
    const measure = passageOf(1, 'Measures how long a block of code runs between two marks.', 4, ['Performance', '`performance.measure(name)`']);
    const uptime = passageOf(2, 'Returns the number of seconds the current process has been running.', 3, ['Process', '`process.uptime()`']);
    const withMeaning = (passage: ScoredPassage, sentenceSimilarity: number): ScoredPassage => ({
      ...passage,
      similarity: 0.5,
      documentSimilarity: 0.5,
      sentenceSimilarity,
      sentenceSimilarities: [sentenceSimilarity],
    });
    const terms = ['long', 'run'];
    const frequencies = { long: 2, run: 2 };

    const lexicalOnly = composeExtractiveAnswer(terms, searchOf([measure, uptime], frequencies));
    const dense = composeExtractiveAnswer(terms, searchOf([withMeaning(measure, 0.3), withMeaning(uptime, 0.8)], frequencies));

    // Without the sentences' meaning the first-ranked passage's sentence naming "runs" is quoted; with it, the uptime sentence, though ranked second.
    expect(lexicalOnly?.cited[0]?.chunkId).toBe(1);
    expect(dense?.cited[0]?.chunkId).toBe(2);
    expect(dense?.text).toContain('Returns the number of seconds the current process has been running');
  });

  test('two pages: the margin is the first passage\'s score over the other page\'s best, as a share of the first; a heading naming a term counts in the heading share', () => {
    const first = passageOf(1, 'Creates a new directory at the given path.', 4, ['Guide', 'Directories']);
    const other = passageOf(2, 'Creates a file.', 3);

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([first, other], { creat: 2, directori: 2 }));

    expect(answer?.features.documentMargin).toBeCloseTo((4 - 3) / 4, 12);
    // Both terms weigh the same (same df): "Directories" names one of two.
    expect(answer?.features.headingShare).toBeCloseTo(0.5, 12);
  });

  test('quoted sentence ending in a question mark: marker placed before it', () => {
    const passage = passageOf(1, 'Want to create a nested directory tree?', 3);

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([passage], { creat: 2, directori: 2 }));

    expect(answer?.text).toBe('Want to create a nested directory tree [1]?');
  });

  test('quoted sentence with a space before its full stop (tokenized text): one space before the marker', () => {
    const passage = passageOf(1, 'Creates a new directory at the given path .', 3);

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([passage], { creat: 2, directori: 2 }));

    expect(answer?.text).toBe('Creates a new directory at the given path [1].');
  });

  test('quoted list item without closing punctuation: marker appended after the text', () => {
    const passage = passageOf(1, '- Creates every missing parent directory', 3);

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([passage], { creat: 2, directori: 2 }));

    expect(answer?.text).toBe('Creates every missing parent directory [1]');
  });

  test('two sentences of one passage covering different terms: both quoted, one marker after the pair', () => {
    // Equal weights; each sentence covers half the question: support 0.5 + 0.15 each.
    const passage = passageOf(1, 'Creates a directory at the given path. The mode option sets the permissions.', 4);
    const search = searchOf([passage], { creat: 1, directori: 1, mode: 1, permiss: 1 });

    const answer = composeExtractiveAnswer(['creat', 'directori', 'mode', 'permiss'], search);

    expect(answer?.text).toBe('Creates a directory at the given path. The mode option sets the permissions [1].');
    expect(answer?.cited).toEqual([passage]);
    expect(answer?.features.passageCoverage).toBe(1);
  });

  test('best sentence in the second-ranked passage, a further one in the first: markers numbered in text order', () => {
    // N = 100; "rare" df 1 (idf 4.21), "common" and "other" df 10 (idf 2.26 each).
    // First passage: support 0.48 + 1 * 1 = 1.48; second: 0.52 + 1 * 0.99 = 1.51, so it is chosen
    // first, and the first passage's sentence follows (>= 0.8 of its support, new terms).
    const first = passageOf(1, 'The rare value is stored in this field.', 10);
    const second = passageOf(2, 'The common and other values live in the second field.', 9.5);
    const search = searchOf([first, second], { rare: 1, common: 10, other: 10 }, 100, [1, 0.99]);

    const answer = composeExtractiveAnswer(['rare', 'common', 'other'], search);

    expect(answer?.text).toBe(
      'The rare value is stored in this field [1]. The common and other values live in the second field [2].',
    );
    expect(answer?.cited).toEqual([first, second]);
  });

  test('sentence of another passage covering only terms already quoted: not added', () => {
    const first = passageOf(1, 'Creates a directory at the given path.', 10);
    const second = passageOf(2, 'Creating directories is done with the mkdir call.', 9.5);

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([first, second], { creat: 2, directori: 2 }));

    expect(answer?.text).toBe('Creates a directory at the given path [1].');
    expect(answer?.cited).toEqual([first]);
  });

  test('passage scored below 0.75 of the best: its sentence not added even though it covers new terms', () => {
    const first = passageOf(1, 'The rare value is stored in this field.', 10);
    const weak = passageOf(2, 'The common values and the other ones live in the second field.', 5);
    const search = searchOf([first, weak], { rare: 1, common: 10, other: 10 }, 100);

    const answer = composeExtractiveAnswer(['rare', 'common', 'other'], search);

    expect(answer?.text).toBe('The rare value is stored in this field [1].');
    expect(answer?.cited).toEqual([first]);
  });

  test('five sentences of one passage each adding a new term: only MAX_SENTENCES quoted, the first ones', () => {
    const passage = passageOf(
      1,
      [
        'The stream option is read first.',
        'The buffer option is read second.',
        'The socket option is read third.',
        'The server option is read fourth.',
        'The client option is read fifth.',
      ].join(' '),
      4,
    );
    const terms = ['stream', 'buffer', 'socket', 'server', 'client'];
    const search = searchOf([passage], Object.fromEntries(terms.map((term) => [term, 3])));

    const answer = composeExtractiveAnswer(terms, search);

    expect(MAX_SENTENCES).toBe(3);
    expect(answer?.text).toBe(
      'The stream option is read first. The buffer option is read second. The socket option is read third [1].',
    );
  });

  test('fenced code containing the question terms: never quoted, the prose sentence is', () => {
    const passage = passageOf(
      1,
      [
        'Use this call:',
        '',
        '```js',
        "fs.mkdir('directory', callback); // Creates the directory. Create it now.",
        '```',
        '',
        'The directory is created when the callback runs.',
      ].join('\n'),
      6,
    );

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([passage], { creat: 2, directori: 2 }));

    expect(answer?.text).toBe('The directory is created when the callback runs [1].');
    expect(answer?.text).not.toContain('mkdir');
  });

  test('best BM25 passage is only code: the next passage with prose is quoted and cited as [1]', () => {
    const codeOnly = passageOf(1, '```\nmkdir directory create\n```', 10);
    const prose = passageOf(2, 'Creates a directory at the given path.', 8);

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([codeOnly, prose], { creat: 2, directori: 2 }));

    expect(answer?.text).toBe('Creates a directory at the given path [1].');
    expect(answer?.cited).toEqual([prose]);
  });

  test('question term found only in a worded heading: counts at half weight, that passage beats a higher BM25 rank', () => {
    // Question: mkdir, permiss (equal weights). Higher-ranked: 0.5 + 1 * 1 = 1.5.
    // Lower-ranked, heading "Using mkdir" holds mkdir: 0.5 + 0.5 * 0.5 + 1 * 0.99 + 1.5 * 0.5 (heading subject) = 2.49.
    const higher = passageOf(1, 'The permissions are read from the process umask.', 10, ['Guide', 'Processes']);
    const headed = passageOf(2, 'Sets the permissions of the new folder.', 9.9, ['File system', 'Using mkdir']);
    const search = searchOf([higher, headed], { mkdir: 2, permiss: 2, us: 2 });

    const answer = composeExtractiveAnswer(['mkdir', 'permiss'], search);

    expect(answer?.text).toBe('Sets the permissions of the new folder [1].');
    expect(answer?.cited).toEqual([headed]);
    expect(answer?.features.passageCoverage).toBe(1);
    expect(answer?.features.sentenceCoverage).toBe(0.75);
  });

  test('question term only in a heading that names an API: the heading leads the answer, the evidence still counts it at half weight', () => {
    const higher = passageOf(1, 'The permissions are read from the process umask.', 10, ['Guide', 'Processes']);
    const headed = passageOf(2, 'Sets the permissions of the new folder.', 9.9, ['File system', '`fs.mkdir(path)`']);
    const search = searchOf([higher, headed], { mkdir: 2, permiss: 2 });

    const answer = composeExtractiveAnswer(['mkdir', 'permiss'], search);

    expect(answer?.text).toBe('`fs.mkdir(path)`: Sets the permissions of the new folder [1].');
    expect(answer?.cited).toEqual([headed]);
    expect(answer?.features.sentenceCoverage).toBe(0.75);
  });

  test(`sentence only in a passage beyond the first ${CANDIDATE_PASSAGES}: never considered`, () => {
    const filler = [1, 2, 3, 4, 5].map((chunkId) => passageOf(chunkId, 'Nothing relevant is said in this passage.', 10));
    const sixth = passageOf(6, 'Creates a directory at the given path.', 10);

    const answer = composeExtractiveAnswer(['creat', 'directori'], searchOf([...filler, sixth], { creat: 2, directori: 2 }));

    expect(answer?.cited).not.toContainEqual(sixth);
    expect(answer?.features.passageCoverage).toBe(0);
  });

  test('documentShare of the search: passed to the evidence, a scattered result scores lower', () => {
    const passage = passageOf(1, 'Creates a new directory at the given path.', 3);
    const frequencies = { creat: 2, directori: 2 };

    const concentrated = composeExtractiveAnswer(['creat', 'directori'], searchOf([passage], frequencies, 10, [1], 1));
    const scattered = composeExtractiveAnswer(['creat', 'directori'], searchOf([passage], frequencies, 10, [1], 0.2));

    expect(concentrated?.features.documentShare).toBe(1);
    expect(scattered?.features.documentShare).toBe(0.2);
    expect(scattered!.evidence).toBeLessThan(concentrated!.evidence);
  });

  test('question term absent from the knowledge base (df 0): raises unknownShare, evidence falls below the threshold', () => {
    const passage = passageOf(1, 'Creates a new directory at the given path.', 3);
    const frequencies = { creat: 2, directori: 2, kubernet: 0 };

    const known = composeExtractiveAnswer(['creat', 'directori'], searchOf([passage], frequencies));
    const withUnknown = composeExtractiveAnswer(['creat', 'directori', 'kubernet'], searchOf([passage], frequencies));

    // N = 10: idf(df 0) = ln 22, idf(df 2) = ln 4.4.
    const unknownShare = idf(10, 0) / (idf(10, 0) + 2 * idf(10, 2));
    expect(withUnknown?.features.unknownShare).toBeCloseTo(unknownShare, 10);
    expect(withUnknown?.features.passageCoverage).toBeCloseTo(1 - unknownShare, 10);
    expect(withUnknown!.evidence).toBeLessThan(known!.evidence);
    expect(withUnknown!.evidence).toBeLessThan(DEFAULT_ABSTENTION_THRESHOLD);
    expect(known!.evidence).toBeGreaterThan(DEFAULT_ABSTENTION_THRESHOLD);
  });

  test('question term in the knowledge base but not in the retrieved passages: lowers coverage, not unknownShare', () => {
    const passage = passageOf(1, 'Creates a new directory at the given path.', 3);

    const answer = composeExtractiveAnswer(
      ['creat', 'directori', 'symlink'],
      searchOf([passage], { creat: 2, directori: 2, symlink: 2 }),
    );

    expect(answer?.features.unknownShare).toBe(0);
    expect(answer?.features.passageCoverage).toBeCloseTo(2 / 3, 10);
  });

  test('quoted sentence containing a literal [2]: every marker in the answer still names a citation', () => {
    const passage = passageOf(1, 'Read `process.argv[2]` to get the first command line argument.', 5);
    const terms = ['first', 'command', 'line', 'argument'];
    const search = searchOf([passage], Object.fromEntries(terms.map((term) => [term, 2])));

    const answer = composeExtractiveAnswer(terms, search);

    expect(answer?.text).toBe('Read `process.argv[2]` to get the first command line argument [1].');
    for (const marker of markersOf(answer!.text)) {
      expect(marker).toBeGreaterThanOrEqual(1);
      expect(marker).toBeLessThanOrEqual(answer!.cited.length);
    }
  });
});

describe('composeExtractiveAnswer: documentation', () => {
  /** A passage of a page of API docs (its text writes code, so it is technical documentation). */
  function docsPassage(chunkId: number, docId: string, headingPath: string[], text: string, score = 10): ScoredPassage {
    return { ...passageOf(chunkId, text, score, headingPath), docId };
  }
  const frequencies = { renam: 2, file: 2, move: 2, watch: 2 };

  test('second passage of another page adding question terms: not stitched on (another subject)', () => {
    const rename = docsPassage(1, 'fs.md', ['File system', '`fs.rename(oldPath, newPath)`'], 'Renames the `oldPath` file.');
    // Supported nearly as well (all three terms, 0.99 relevance), adding "move": only its page keeps it out.
    const other = docsPassage(2, 'shell.md', ['Shell', 'Tips'], 'Files are renamed or moved with `mv` in a shell.', 9.9);

    const answer = composeExtractiveAnswer(['renam', 'file', 'move'], searchOf([rename, other], frequencies));

    expect(answer?.cited).toEqual([rename]);
  });

  test('answer led by an API heading, a worded section of the same page adding terms: not stitched on', () => {
    const rename = docsPassage(1, 'fs.md', ['File system', '`fs.rename(oldPath, newPath)`'], 'Renames the `oldPath` file.');
    // Supported nearly as well (all three terms), adding "move": only its worded heading keeps it out.
    const caveat = docsPassage(2, 'fs.md', ['File system', '`fs.watch(filename)`', 'Caveats'], 'A watched `file` that is renamed or moved emits nothing.', 9.9);

    const answer = composeExtractiveAnswer(['renam', 'file', 'move'], searchOf([rename, caveat], frequencies));

    expect(answer?.text).toBe('`fs.rename(oldPath, newPath)`: Renames the `oldPath` file [1].');
  });

  test('answer led by an API heading, another API section of the page adding a missing term: added under its own heading', () => {
    const rename = docsPassage(1, 'fs.md', ['File system', '`fs.rename(oldPath, newPath)`'], 'Renames the `oldPath` file.');
    const watch = docsPassage(2, 'fs.md', ['File system', '`fs.watch(filename)`'], 'Reports when a `file` is moved.', 9.9);

    const answer = composeExtractiveAnswer(['renam', 'file', 'move'], searchOf([rename, watch], frequencies));

    expect(answer?.text).toBe('`fs.rename(oldPath, newPath)`: Renames the `oldPath` file [1]. `fs.watch(filename)`: Reports when a `file` is moved [2].');
  });

  test('another API section adding no missing term: not added', () => {
    const rename = docsPassage(1, 'fs.md', ['File system', '`fs.rename(oldPath, newPath)`'], 'Renames and moves the `oldPath` file.');
    const sync = docsPassage(2, 'fs.md', ['File system', '`fs.renameSync(oldPath, newPath)`'], 'Renames the `oldPath` file synchronously.', 9.9);

    const answer = composeExtractiveAnswer(['renam', 'file', 'move'], searchOf([rename, sync], frequencies));

    expect(answer?.cited).toEqual([rename]);
  });

  test('heading subject naming the question\'s term: that section answers, over a higher-ranked one', () => {
    // Caveat: 2/3 + 1 (relevance); rename: 2/3 + 1/3 (its subject, shown) + 0.95 + 1.5 * 1/3 (subject weight).
    const caveat = docsPassage(1, 'fs.md', ['File system', '`fs.watch(filename)`', 'Caveats'], 'A watched `file` that is moved emits nothing.');
    const rename = docsPassage(2, 'fs.md', ['File system', '`fs.rename(oldPath, newPath)`'], 'Changes the name of a `file`.', 9.5);
    const search = searchOf([caveat, rename], frequencies, 10, [1, 0.95]);

    const answer = composeExtractiveAnswer(['renam', 'file', 'move'], search);

    expect(answer?.text.startsWith('`fs.rename(oldPath, newPath)`: ')).toBe(true);
    expect(answer?.cited[0]).toBe(rename);
  });

  test('an option item and a prose sentence covering the same terms: the prose sentence anchors the answer', () => {
    // Option: 1 + 1 - 0.1 (an option item the question does not name); prose: 1 + 0.99.
    const option = docsPassage(1, 'readline.md', ['Readline', 'Options'], '- `crlfDelay` {number} Delay when reading a file line.');
    const prose = docsPassage(2, 'readline.md', ['Readline', 'Usage'], 'Reading a file line by line is common.', 9.9);

    const answer = composeExtractiveAnswer(['read', 'file', 'line'], searchOf([option, prose], { read: 2, file: 2, line: 2 }, 10, [1, 0.99]));

    expect(answer?.text).toBe('Reading a file line by line is common [1].');
  });

  test('how-question over an API section with an example: the example follows; the same section asked "what": no code', () => {
    const passage = docsPassage(1, 'fs.md', ['File system', '`fs.rename(oldPath, newPath)`'], "Renames a file.\n\n```\nrename('a', 'b', done);\n```");
    const search = searchOf([passage], frequencies);

    const how = composeExtractiveAnswer(['renam', 'file'], search, 'How do I rename a file?');
    const what = composeExtractiveAnswer(['renam', 'file'], search, 'What does renaming a file do?');

    expect(how?.text).toBe("`fs.rename(oldPath, newPath)`: Renames a file [1].\n\n```\nrename('a', 'b', done);\n```");
    expect(what?.text).toBe('`fs.rename(oldPath, newPath)`: Renames a file [1].');
  });
});

describe('composeExtractiveAnswer over random small fixtures', () => {
  const words = ['stream', 'buffer', 'socket', 'server', 'client', 'timer', 'promise', 'module', 'error', 'event'];
  const sentenceArbitrary = fc
    .tuple(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }), fc.constantFrom('.', '?', '!', ''))
    .map(([chosen, end]) => `The ${chosen.join(' ')}${end}`);
  const passageArbitrary = fc.record({
    sentences: fc.array(sentenceArbitrary, { minLength: 1, maxLength: 4 }),
    withCode: fc.boolean(),
    // BM25 scores close together, so that answers often cite several passages.
    score: fc.double({ min: 8, max: 10, noNaN: true }),
    heading: fc.constantFrom(...words),
  });
  const fixtureArbitrary = fc.record({
    passages: fc.array(passageArbitrary, { minLength: 1, maxLength: 6 }),
    question: fc.uniqueArray(fc.constantFrom(...words, 'kubernetes'), { minLength: 1, maxLength: 5 }),
    documentFrequency: fc.integer({ min: 0, max: 20 }),
  });

  type Fixture = typeof fixtureArbitrary extends fc.Arbitrary<infer T> ? T : never;

  /** The fixture's BM25 result (best first), through the re-ranking stage as the engine retrieves it. */
  function buildSearch(fixture: Fixture): { terms: string[]; search: RerankedSearch } {
    const scores = fixture.passages.map((passage) => passage.score).sort((left, right) => right - left);
    const passages = fixture.passages.map((passage, position) => {
      const blocks = passage.sentences.join(' ');
      const text = passage.withCode ? `${blocks}\n\n\`\`\`\nconst codeOnly = 1;\n\`\`\`` : blocks;
      return passageOf(position + 1, text, scores[position]!, ['Guide', `The ${passage.heading} section`]);
    });
    const terms = [...new Set(fixture.question.flatMap((word) => analyze(word)))];
    const documentFrequencies = Object.fromEntries(
      terms.map((term) => [term, term === 'kubernet' ? 0 : fixture.documentFrequency]),
    );
    return { terms, search: rerankPassages(terms, { passages, passageCount: 20, documentFrequencies }) };
  }

  test('any fixture: every marker names a cited passage, every cited passage is marked, numbered in order of first use', () => {
    fc.assert(
      fc.property(fixtureArbitrary, (fixture) => {
        const { terms, search } = buildSearch(fixture);

        const answer = composeExtractiveAnswer(terms, search);

        expect(answer).toBeDefined();
        const markers = markersOf(answer!.text);
        const firstUses = markers.filter((marker, position) => markers.indexOf(marker) === position);
        expect(firstUses).toEqual(answer!.cited.map((_, position) => position + 1));
      }),
      { numRuns: 300 },
    );
  });

  test('any fixture: cited passages are distinct retrieved passages, at most MAX_SENTENCES, no code quoted', () => {
    fc.assert(
      fc.property(fixtureArbitrary, (fixture) => {
        const { terms, search } = buildSearch(fixture);

        const answer = composeExtractiveAnswer(terms, search);

        const citedIds = answer!.cited.map((passage) => passage.chunkId);
        expect(new Set(citedIds).size).toBe(citedIds.length);
        expect(citedIds.length).toBeLessThanOrEqual(MAX_SENTENCES);
        for (const passage of answer!.cited) expect(search.passages).toContain(passage);
        expect(answer!.text).not.toContain('codeOnly');
        expect(answer!.evidence).toBeGreaterThan(0);
        expect(answer!.evidence).toBeLessThan(1);
      }),
      { numRuns: 300 },
    );
  });
});

describe('phraseCoverage', () => {
  test('question pairs found side by side in the passage: their share of the pairs', () => {
    // Pairs: (dutch, name), (name, rhine); the passage holds "dutch name" only.
    expect(phraseCoverage(['dutch', 'name', 'rhine'], analyze('The Dutch name of the river is Rijn; the Rhine flows north.'))).toBe(0.5);
  });

  test('stop words between two terms: still side by side once analyzed', () => {
    expect(phraseCoverage(['name', 'rhine'], analyze('the name of the Rhine'))).toBe(1);
  });

  test('question of one term: 0', () => {
    expect(phraseCoverage(['rhine'], ['rhine'])).toBe(0);
  });
});

describe('composeExtractiveAnswer sentence choice', () => {
  test('two sentences covering the same terms: the one holding them as a phrase is quoted', () => {
    const passage = passageOf(1, 'The river has a Dutch and a German name. The Dutch name is Rijn.', 4);
    const search = searchOf([passage], { dutch: 2, name: 2 });

    const answer = composeExtractiveAnswer(['dutch', 'name'], search);

    expect(answer?.text).toBe('The Dutch name is Rijn [1].');
  });
});
