import { describe, expect, test } from 'vitest';
import { MAX_TOKEN_LENGTH, analyze, termFrequencies, tokenize } from './analyzer.ts';
import { STOP_WORDS } from './stop-words.ts';

describe('tokenize', () => {
  test('mixed-case words: lower-cased, in order, duplicates kept', () => {
    const tokens = tokenize('Read the File and read it again');

    expect(tokens).toEqual(['read', 'the', 'file', 'and', 'read', 'it', 'again']);
  });

  test('API call in prose: split on the dot and the parentheses', () => {
    const tokens = tokenize('Call fs.mkdir() first.');

    expect(tokens).toEqual(['call', 'fs', 'mkdir', 'first']);
  });

  test('punctuation, hyphens, slashes and markdown: all separate tokens, none kept as tokens', () => {
    const tokens = tokenize('**Note:** `read-only` paths/files, (e.g. /tmp)!');

    expect(tokens).toEqual(['note', 'read', 'only', 'paths', 'files', 'e', 'g', 'tmp']);
  });

  test('digits inside words: kept with the letters', () => {
    const tokens = tokenize('Use utf8 or base64, not UTF-16 with 2 bytes.');

    expect(tokens).toEqual(['use', 'utf8', 'or', 'base64', 'not', 'utf', '16', 'with', '2', 'bytes']);
  });

  test("possessive 's with a straight or a curly apostrophe: removed", () => {
    const tokens = tokenize("The user's home and the server\u2019s port");

    expect(tokens).toEqual(['the', 'user', 'home', 'and', 'the', 'server', 'port']);
  });

  test("apostrophe followed by an s that starts a longer word: not a possessive, the word is kept", () => {
    const tokens = tokenize("O'Sullivan");

    expect(tokens).toEqual(['o', 'sullivan']);
  });

  test('full-width letters and ligatures: NFKC-folded to plain ASCII letters', () => {
    const tokens = tokenize('\uFF21\uFF30\uFF29 \uFB01le');

    expect(tokens).toEqual(['api', 'file']);
  });

  test('accented word written with a combining accent: folded to the same token as the precomposed word', () => {
    const decomposed = 'cafe\u0301';

    const tokens = tokenize(decomposed);

    expect(tokens).toEqual(['caf\u00E9']);
  });

  test('word containing combining marks (Devanagari): kept as one token', () => {
    const tokens = tokenize('\u0928\u092E\u0938\u094D\u0924\u0947');

    expect(tokens).toEqual(['\u0928\u092E\u0938\u094D\u0924\u0947']);
  });

  test('token of exactly MAX_TOKEN_LENGTH characters: kept; one character longer: dropped', () => {
    const longest = 'a'.repeat(MAX_TOKEN_LENGTH);
    const tooLong = 'b'.repeat(MAX_TOKEN_LENGTH + 1);

    const tokens = tokenize(`${longest} ${tooLong} end`);

    expect(tokens).toEqual([longest, 'end']);
  });

  test('empty or punctuation-only text: no tokens', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize(' ... --- ()[]{} ')).toEqual([]);
  });
});

describe('analyze', () => {
  test('question with function words: stop words dropped, content words stemmed', () => {
    const terms = analyze('How do I create the directories?');

    expect(terms).toEqual(['creat', 'directori']);
  });

  test('sentence about an API call: Porter stems of the content words, API name split, abbreviations followed by their words', () => {
    const terms = analyze("The directories were created by fs.mkdir() in the user's home");

    expect(terms).toEqual(['directori', 'creat', 'fs', 'file', 'system', 'mkdir', 'make', 'directori', 'user', 'home']);
  });

  test('camel-case identifier: kept whole, then its words', () => {
    expect(tokenize('fs.createReadStream(path)')).toEqual(['fs', 'createreadstream', 'create', 'read', 'stream', 'path']);
  });

  test('identifier starting with an acronym: the acronym is one word', () => {
    expect(tokenize('new HTTPServer()')).toEqual(['new', 'httpserver', 'http', 'server']);
  });

  test('capitalised word or all-capitals acronym: one token, not split', () => {
    expect(tokenize('Buffer HTTP')).toEqual(['buffer', 'http']);
  });

  test('a question in plain words meets the abbreviated identifier of the docs', () => {
    const question = new Set(analyze('How do I read environment variables?'));
    const heading = analyze('`process.env`');

    expect(heading).toEqual(['process', 'env', 'environ']);
    expect(heading.filter((term) => question.has(term))).toEqual(['environ']);
  });

  test('an abbreviation in the question meets the words of the docs', () => {
    const passage = new Set(analyze('Creates a temporary directory.'));

    expect(analyze('make a tmp dir').filter((term) => passage.has(term))).toEqual(['temporari', 'directori']);
  });

  test('inflected forms of one word: same stem', () => {
    const terms = analyze('connect connected connecting connection connections');

    expect(new Set(terms)).toEqual(new Set(['connect']));
    expect(terms).toHaveLength(5);
  });

  test('stop word in capitals: dropped after lower-casing', () => {
    const terms = analyze('THE Stream IS Readable');

    expect(terms).toEqual(['stream', 'readabl']);
  });

  test('text made only of stop words: no terms', () => {
    const terms = analyze('What is it and how do I get there?');

    expect(terms).toEqual([]);
  });

  test('every listed stop word on its own: no terms', () => {
    const text = [...STOP_WORDS].join(' ');

    const terms = analyze(text);

    expect(terms).toEqual([]);
  });

  test('overlong token in prose: dropped, the words around it kept', () => {
    const hash = 'f'.repeat(64);

    const terms = analyze(`checksum ${hash} matches`);

    expect(terms).toEqual(['checksum', 'match']);
  });

  test('same text analyzed twice: same terms (stemming is deterministic)', () => {
    const text = 'Streams emit events while buffering chunks';

    const first = analyze(text);
    const second = analyze(text);

    expect(second).toEqual(first);
    expect(first).toEqual(['stream', 'emit', 'event', 'while', 'buffer', 'chunk']);
  });
});

describe('termFrequencies', () => {
  test('terms with repeats: each distinct term counted', () => {
    const counts = termFrequencies(['stream', 'read', 'stream', 'stream', 'pipe']);

    expect(counts).toEqual(
      new Map([
        ['stream', 3],
        ['read', 1],
        ['pipe', 1],
      ]),
    );
  });

  test('analyzed sentence: counts add up to the number of terms', () => {
    const terms = analyze('Readable streams and writable streams: a stream pipes into a stream.');

    const counts = termFrequencies(terms);

    expect(counts.get('stream')).toBe(4);
    expect([...counts.values()].reduce((total, count) => total + count, 0)).toBe(terms.length);
  });

  test('no terms: empty map', () => {
    expect(termFrequencies([]).size).toBe(0);
  });
});
