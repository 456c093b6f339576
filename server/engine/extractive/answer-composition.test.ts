import { describe, expect, test } from 'vitest';
import { MAX_ANSWER_CHARACTERS, ownerHeadingPath, sectionSnippet, SNIPPET_CHARACTERS, writeAnswerText, type AnswerTextInput, type QuotedSentence } from './answer-composition.ts';
import { analyzePassage } from '../passages/passage-analysis.ts';
import type { ScoredPassage } from '../../store/store.ts';
import { findCitationMarkers } from '../../../protocol/citation-markers.ts';

/** A passage of `fs.md` (or another page); only the fields the writer reads matter. */
function passageOf(chunkId: number, headingPath: string[], text: string, docId = 'fs.md'): ScoredPassage {
  return { chunkId, kbId: 'kb', docId, title: headingPath[0] ?? docId, headingPath, text, quotable: true, contentHash: `hash-${chunkId}`, score: 10 - chunkId };
}

/** The passage's sentence with this text, as the answerer would have chosen it. */
function chosen(passage: ScoredPassage, text: string, rank = 0): QuotedSentence {
  const sentence = analyzePassage(passage).sentences.find((analyzed) => analyzed.sentence.text === text)?.sentence;
  if (!sentence) throw new Error(`No sentence "${text}" in passage ${passage.chunkId}`);
  return { sentence, passage, rank };
}

/** The writer's input for sentences chosen from one anchor passage, with defaults for the rest. */
function inputOf(selected: QuotedSentence[], overrides: Partial<AnswerTextInput> = {}): AnswerTextInput {
  const anchor = selected[0]!.passage;
  return {
    selected,
    anchor,
    leads: true,
    section: [anchor],
    ownerSection: [],
    weights: new Map([['file', 1]]),
    howQuestion: false,
    ...overrides,
  };
}

const STAT_HEADING = ['File system', 'Callback API', '`fs.stat(path[, options], callback)`'];
const STAT_TEXT = [
  '- `path` {string|Buffer|URL}',
  '- `options` {Object}',
  '- `bigint` {boolean} Whether the numeric values should be bigint. Default: `false`.',
  '',
  'Asynchronous stat(2). The callback gets two arguments `(err, stats)` where `stats` is an {fs.Stats} object.',
  '',
  'In case of an error, the `err.code` will be one of the common system errors.',
].join('\n\n');
const STAT_EXAMPLE = "```\nimport { stat } from 'node:fs';\n\nstat('file.txt', (err, stats) => {\n  console.log(stats.size);\n});\n```";

describe('writeAnswerText: a section that documents an API', () => {
  test('best sentence deep in an API section: the signature leads, then the description, then the sentence', () => {
    const passage = passageOf(1, STAT_HEADING, STAT_TEXT);

    const { text, cited } = writeAnswerText(inputOf([chosen(passage, 'In case of an error, the `err.code` will be one of the common system errors.')]));

    expect(text).toBe(
      '`fs.stat(path[, options], callback)`: Asynchronous stat(2). The callback gets two arguments `(err, stats)` where `stats` is an `fs.Stats` object. ' +
        'In case of an error, the `err.code` will be one of the common system errors [1].',
    );
    expect(cited).toEqual([passage]);
  });

  test('description in an earlier passage of the section: quoted from it and cited first', () => {
    const first = passageOf(1, STAT_HEADING, 'Asynchronous stat(2) reads the status of a file.');
    const second = passageOf(2, STAT_HEADING, 'The file is not opened to read its status.');

    const { text, cited } = writeAnswerText(inputOf([chosen(second, 'The file is not opened to read its status.')], { section: [first, second] }));

    expect(text).toBe(
      '`fs.stat(path[, options], callback)`: Asynchronous stat(2) reads the status of a file [1]. The file is not opened to read its status [2].',
    );
    expect(cited).toEqual([first, second]);
  });

  test('paragraph between two option items (an option described at length): not taken for the description', () => {
    const passage = passageOf(1, ['TLS', '`tls.connect(options)`'], [
      '- `pskCallback` {Function}',
      'When negotiating TLS-PSK, this function is called with an identity hint.',
      '- `session` {Buffer} A TLS session.',
      'Connects to a server and returns a TLS socket.',
    ].join('\n\n'));

    const { text } = writeAnswerText(inputOf([chosen(passage, '`session` {Buffer} A TLS session.')], { weights: new Map([['session', 1]]) }));

    expect(text.startsWith('`tls.connect(options)`: Connects to a server and returns a TLS socket.')).toBe(true);
  });

  test('option item the question does not name: left out once the description says what the API is', () => {
    const passage = passageOf(1, STAT_HEADING, STAT_TEXT);

    const { text } = writeAnswerText(inputOf([chosen(passage, '`bigint` {boolean} Whether the numeric values should be bigint.')]));

    expect(text).not.toContain('bigint` {boolean}');
    expect(text).toContain('Asynchronous stat(2).');
  });

  test('option item whose name the question holds: quoted after the description', () => {
    const passage = passageOf(1, STAT_HEADING, STAT_TEXT);

    const { text } = writeAnswerText(
      inputOf([chosen(passage, '`bigint` {boolean} Whether the numeric values should be bigint.')], { weights: new Map([['bigint', 1]]) }),
    );

    expect(text).toMatch(/^`fs\.stat\(path\[, options\], callback\)`: Asynchronous stat\(2\)\. .* `bigint` `boolean` Whether the numeric values should be bigint \[1\]\.$/);
  });

  test('worded heading of a task section: shown in bold', () => {
    const passage = passageOf(1, ['Readline', 'Read a file line by line'], `Use an interface over a file stream.\n\n${STAT_EXAMPLE}`, 'readline.md');

    const { text } = writeAnswerText(inputOf([chosen(passage, 'Use an interface over a file stream.')]));

    expect(text).toBe('**Read a file line by line**: Use an interface over a file stream [1].');
  });

  test('sentence of another API section of the page: led by that section\'s own heading', () => {
    const stat = passageOf(1, STAT_HEADING, 'Asynchronous stat(2) of a file.');
    const size = passageOf(2, ['File system', 'Class: `fs.Stats`', '`stats.size`'], 'The size of the file in bytes.');

    const { text, cited } = writeAnswerText(inputOf([chosen(stat, 'Asynchronous stat(2) of a file.'), chosen(size, 'The size of the file in bytes.', 1)]));

    expect(text).toBe('`fs.stat(path[, options], callback)`: Asynchronous stat(2) of a file [1]. `stats.size`: The size of the file in bytes [2].');
    expect(cited).toEqual([stat, size]);
  });

  test('bracketed number in a heading or a sentence: escaped, so the only markers are citations', () => {
    const passage = passageOf(1, ['Process', 'Reading argv[2]'], 'The value of argv [2] is the first argument.', 'process.md');

    const { text } = writeAnswerText(inputOf([chosen(passage, 'The value of argv [2] is the first argument.')], { leads: false }));

    expect(findCitationMarkers(text)).toEqual([1]);
  });
});

describe('writeAnswerText: code example', () => {
  const passage = passageOf(1, STAT_HEADING, `Asynchronous stat(2) of a file.\n\n${STAT_EXAMPLE}`);

  test('how-question: the section\'s first example follows as a fenced block', () => {
    const { text } = writeAnswerText(inputOf([chosen(passage, 'Asynchronous stat(2) of a file.')], { howQuestion: true }));

    expect(text).toBe(`\`fs.stat(path[, options], callback)\`: Asynchronous stat(2) of a file [1].\n\n${STAT_EXAMPLE}`);
  });

  test('not a how-question: no code', () => {
    const { text } = writeAnswerText(inputOf([chosen(passage, 'Asynchronous stat(2) of a file.')], { howQuestion: false }));

    expect(text).not.toContain('```');
  });

  test('example in a passage not cited last: introduced by "Example [n]:" with that passage\'s marker', () => {
    const description = passageOf(1, STAT_HEADING, 'Asynchronous stat(2) of a file.');
    const example = passageOf(2, STAT_HEADING, STAT_EXAMPLE);

    const { text, cited } = writeAnswerText(
      inputOf([chosen(description, 'Asynchronous stat(2) of a file.')], { section: [description, example], howQuestion: true }),
    );

    expect(text).toBe(`\`fs.stat(path[, options], callback)\`: Asynchronous stat(2) of a file [1].\n\nExample [2]:\n\n${STAT_EXAMPLE}`);
    expect(cited).toEqual([description, example]);
  });
});

describe(`writeAnswerText: at most ${MAX_ANSWER_CHARACTERS} characters`, () => {
  /** A sentence of `count` times the word (under the 400-character clip of text/sentences.ts). */
  const long = (word: string, count: number): string => `${`${word} `.repeat(count).trim()}.`;

  test('three long sentences and a long example: the answer within the cap, the first sentence kept', () => {
    const code = Array.from({ length: 60 }, (_, index) => `console.log(${index});`).join('\n');
    const sentences = [long('Alpha', 45), long('Bravo', 45), long('Charlie', 45)];
    const passage = passageOf(1, STAT_HEADING, [...sentences, `\`\`\`\n${code}\n\`\`\``].join('\n\n'));
    const selected = sentences.map((sentence) => chosen(passage, sentence));

    const { text } = writeAnswerText(inputOf(selected, { leads: false, howQuestion: true }));

    expect(text.length).toBeLessThanOrEqual(MAX_ANSWER_CHARACTERS);
    expect(text.startsWith('Alpha Alpha')).toBe(true);
    expect(text).toContain('Charlie');
    expect(text).toContain('```');
  });

  test('sentences that together pass the cap: the later ones left out, the first kept', () => {
    const sentences = [long('Alpha', 65), long('Bravo', 65), long('Charlie', 48), long('Delta', 65)];
    const passage = passageOf(1, STAT_HEADING, sentences.join(' '));
    const selected = sentences.map((sentence) => chosen(passage, sentence));

    const { text } = writeAnswerText(inputOf(selected, { leads: false }));

    expect(text.length).toBeLessThanOrEqual(MAX_ANSWER_CHARACTERS);
    expect(text.startsWith('Alpha Alpha')).toBe(true);
    expect(text).not.toContain('Delta');
  });

  test('no room left for three lines of code: the example is left out', () => {
    // 3 x about 390 characters: about 20 left.
    const sentences = [long('Alpha', 65), long('Bravo', 65), long('Charlie', 48)];
    const passage = passageOf(1, STAT_HEADING, [...sentences, STAT_EXAMPLE].join('\n\n'));
    const selected = sentences.map((sentence) => chosen(passage, sentence));

    const { text } = writeAnswerText(inputOf(selected, { leads: false, howQuestion: true }));

    expect(text.length).toBeLessThanOrEqual(MAX_ANSWER_CHARACTERS);
    expect(text).not.toContain('```');
  });
});

describe('writeAnswerText: the opening sentence', () => {
  test('opening "It ..." with a sentence before it in the passage: that sentence is quoted first', () => {
    const passage = passageOf(1, ['Guide', 'Paragraph 3'], 'The cache holds compiled modules. It is cleared on restart.', 'guide.md');

    const { text } = writeAnswerText(inputOf([chosen(passage, 'It is cleared on restart.')], { leads: false }));

    expect(text).toBe('The cache holds compiled modules. It is cleared on restart [1].');
  });

  test('opening "This ..." first in a passage of technical docs: the section heading leads', () => {
    const passage = passageOf(1, ['Guide', 'The `--watch` flag'], 'This restarts the process when a file changes.', 'cli.md');

    const { text } = writeAnswerText(inputOf([chosen(passage, 'This restarts the process when a file changes.')], { leads: false }));

    expect(text).toBe('**The `--watch` flag**: This restarts the process when a file changes [1].');
  });

  test('opening "These ..." first in a prose article: the document title leads', () => {
    const passage = passageOf(1, ['Normans', 'Paragraph 3'], 'These people gave their name to Normandy.', 'normans.md');

    const { text } = writeAnswerText(inputOf([chosen(passage, 'These people gave their name to Normandy.')], { leads: false }));

    expect(text).toBe('**Normans**: These people gave their name to Normandy [1].');
  });

  test('opening with a bare option item: the section heading leads', () => {
    const passage = passageOf(1, ['File system', 'Options'], '- `recursive` {boolean} Creates parent folders.');

    const { text } = writeAnswerText(inputOf([chosen(passage, '`recursive` {boolean} Creates parent folders.')], { leads: false }));

    expect(text).toBe('**Options**: `recursive` `boolean` Creates parent folders [1].');
  });
});

describe('writeAnswerText: an answer not led by a heading', () => {
  const encodings = passageOf(1, ['Buffer', 'Buffers and character encodings'], 'Node.js supports the following encodings. Base64 encoding is one of them.', 'buffer.md');
  const btoa = passageOf(2, ['Buffer', '`buffer.btoa(data)`'], 'Decodes a string into bytes using Latin-1, and encodes those bytes into a string using Base64.', 'buffer.md');
  const guide = passageOf(3, ['Buffer', 'Encodings in practice'], 'Base64 text is longer than the bytes it encodes.', 'buffer.md');

  test('a sentence from another section that documents an API: led by that section\'s heading, so the reader knows what it describes', () => {
    const { text } = writeAnswerText(
      inputOf([chosen(encodings, 'Base64 encoding is one of them.'), chosen(btoa, 'Decodes a string into bytes using Latin-1, and encodes those bytes into a string using Base64.', 1)], {
        leads: false,
      }),
    );

    expect(text).toBe(
      'Base64 encoding is one of them [1]. `buffer.btoa(data)`: Decodes a string into bytes using Latin-1, and encodes those bytes into a string using Base64 [2].',
    );
  });

  test('a sentence from another section under a worded heading: as written', () => {
    const { text } = writeAnswerText(
      inputOf([chosen(encodings, 'Base64 encoding is one of them.'), chosen(guide, 'Base64 text is longer than the bytes it encodes.', 1)], { leads: false }),
    );

    expect(text).toBe('Base64 encoding is one of them [1]. Base64 text is longer than the bytes it encodes [2].');
  });
});

describe('writeAnswerText: later sentences of a list item that names something', () => {
  const errors = passageOf(1, ['Errors', 'Common system errors'], [
    '- `EMFILE` (Too many open files in system): Maximum number of file descriptors has been reached. This is encountered when opening many files at once.',
    '- `ENOTDIR` (Not a directory): A component of the given pathname was not a directory. Commonly raised by `fs.readdir`.',
  ].join('\n\n'));

  test('quoted without the item\'s first sentence: led by the item\'s name, so items do not run together', () => {
    const { text } = writeAnswerText(
      inputOf([chosen(errors, 'This is encountered when opening many files at once.'), chosen(errors, 'Commonly raised by `fs.readdir`.')], { leads: false }),
    );

    expect(text).toBe('**Common system errors**: `EMFILE`: This is encountered when opening many files at once. `ENOTDIR`: Commonly raised by `fs.readdir` [1].');
  });

  test('quoted after the item\'s first sentence, or saying the name itself: as written', () => {
    const first = '`EMFILE` (Too many open files in system): Maximum number of file descriptors has been reached.';
    const { text } = writeAnswerText(inputOf([chosen(errors, first), chosen(errors, 'This is encountered when opening many files at once.')], { leads: false }));

    expect(text).toBe(`**Common system errors**: ${first} This is encountered when opening many files at once [1].`);
  });
});

describe('writeAnswerText: property of a class', () => {
  const size = passageOf(2, ['File system', 'Class: `fs.Stats`', '`stats.size`'], '- {number}\n\nThe size of the file in bytes.');
  const owner = passageOf(1, ['File system', 'Class: `fs.Stats`'], 'A {fs.Stats} object describes a file.\n\nObjects returned from `fs.stat()` are of this type.');

  test('how-question: the class description follows under its heading (how the object is obtained)', () => {
    const { text, cited } = writeAnswerText(inputOf([chosen(size, 'The size of the file in bytes.')], { ownerSection: [owner], howQuestion: true }));

    expect(text).toBe(
      '`stats.size`: The size of the file in bytes [1]. Class: `fs.Stats`: A `fs.Stats` object describes a file. Objects returned from `fs.stat()` are of this type [2].',
    );
    expect(cited).toEqual([size, owner]);
  });

  test('not a how-question: the property alone', () => {
    const { text } = writeAnswerText(inputOf([chosen(size, 'The size of the file in bytes.')], { ownerSection: [owner], howQuestion: false }));

    expect(text).toBe('`stats.size`: The size of the file in bytes [1].');
  });
});

describe('ownerHeadingPath', () => {
  test('property under a Class heading: the class heading path', () => {
    expect(ownerHeadingPath(passageOf(1, ['File system', 'Class: `fs.Stats`', '`stats.size`'], 'x'))).toEqual(['File system', 'Class: `fs.Stats`']);
  });

  test('method signature under a Class heading, or a property under a worded heading: none', () => {
    expect(ownerHeadingPath(passageOf(1, ['File system', 'Class: `fs.Stats`', '`stats.isFile()`'], 'x'))).toBeUndefined();
    expect(ownerHeadingPath(passageOf(1, ['File system', 'Common objects', '`stats.size`'], 'x'))).toBeUndefined();
  });
});

describe('sectionSnippet', () => {
  test('an API section: its describing sentence, past the option items, type references as code', () => {
    const passage = passageOf(1, STAT_HEADING, STAT_TEXT);

    expect(sectionSnippet([passage], passage)).toBe('Asynchronous stat(2). The callback gets two arguments `(err, stats)` where `stats` is an `fs.Stats` object.');
  });

  test('a long sentence: cut at a word, with an ellipsis', () => {
    const words = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');
    const passage = passageOf(1, ['Guide', 'Setup'], `${words}.`);
    const snippet = sectionSnippet([passage], passage)!;

    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_CHARACTERS + 1);
    expect(snippet).toMatch(/^word0 word1 .* word\d+…$/);
  });

  test('a section in two passages, given in any order: the describing sentence of its first, not the first prose of the later one; the retrieved passage counted in when the section misses it', () => {
    const first = passageOf(1, ['Path', '`path.sep`'], '- {string}\n\nProvides the platform-specific path segment separator.');
    const later = passageOf(2, ['Path', '`path.sep`'], 'For example, on POSIX:\n\n```\n"a/b".split(path.sep);\n```');

    expect(sectionSnippet([later, first], later)).toBe('Provides the platform-specific path segment separator.');
    expect(sectionSnippet([], first)).toBe('Provides the platform-specific path segment separator.');
  });

  test('a paragraph between option items that introduces the next ones (a colon), or follows a property type line: it describes the section', () => {
    const format = passageOf(1, ['Util', '`util.format(format[, ...args])`'], '- `format` {string} A format string.\n\nThe `util.format()` method returns a formatted string. Supported specifiers are:\n\n- `%s`: `String` will be used.');
    const eol = passageOf(2, ['OS', '`os.EOL`'], '- {string}\n\nThe operating system-specific end-of-line marker.\n\n- `\\n` on POSIX\n\n- `\\r\\n` on Windows');

    expect(sectionSnippet([format], format)).toBe('The `util.format()` method returns a formatted string. Supported specifiers are: `%s`: `String` will be used');
    expect(sectionSnippet([eol], eol)).toBe('The operating system-specific end-of-line marker.');
  });

  test('a describing sentence ending in a colon: the items it introduces follow it, up to the next paragraph', () => {
    const sep = passageOf(1, ['Path', '`path.sep`'], '- {string}\n\nProvides the platform-specific path segment separator:\n\n- `\\` on Windows\n\n- `/` on POSIX\n\nFor example, on POSIX:\n\n- `a`');

    expect(sectionSnippet([sep], sep)).toBe('Provides the platform-specific path segment separator: `\\` on Windows; `/` on POSIX');
  });

  test('items that end in a period: each its first sentence, read as one run, separated by semicolons, their periods dropped', () => {
    const job = passageOf(1, ['Jobs', 'Parallel execution'], 'There are two kinds of Job:\n\n- Non-parallel Jobs start one Pod. It restarts on failure.\n\n- Parallel Jobs start several.');

    expect(sectionSnippet([job], job)).toBe('There are two kinds of Job: Non-parallel Jobs start one Pod; Parallel Jobs start several');
  });

  test('a section of option items or code only: none', () => {
    const options = passageOf(1, ['Modules', '`__dirname`'], '- {string}');
    const code = passageOf(1, ['Guide', 'Example'], '```\nrun();\n```');
    expect(sectionSnippet([options], options)).toBeUndefined();
    expect(sectionSnippet([code], code)).toBeUndefined();
  });
});
