import { describe, expect, test } from 'vitest';
import { parseFaqFile } from './faq-file.ts';

describe('parseFaqFile', () => {
  test('YAML file with pairs, sources and markers: pairs with camel-case sources, answers kept as written', () => {
    // Arrange
    const text = [
      'pairs:',
      '  - question: How do I create a directory with its parents?',
      "    answer: 'Call `fs.mkdir(path, { recursive: true })` [1], see also [2].'",
      '    sources:',
      '      - doc_id: fs.md',
      '        heading: "`fs.mkdir(path[, options], callback)`"',
      '      - doc_id: guides/setup.md',
      '  - question: "  What is a stream?  "',
      '    answer: A sequence of chunks.',
      '',
    ].join('\n');

    // Act
    const pairs = parseFaqFile(text, 'faq.yaml');

    // Assert
    expect(pairs).toEqual([
      {
        question: 'How do I create a directory with its parents?',
        answer: 'Call `fs.mkdir(path, { recursive: true })` [1], see also [2].',
        sources: [{ docId: 'fs.md', heading: '`fs.mkdir(path[, options], callback)`' }, { docId: 'guides/setup.md' }],
      },
      { question: 'What is a stream?', answer: 'A sequence of chunks.', sources: [] },
    ]);
  });

  test('JSON object with pairs: parsed like YAML', () => {
    // Arrange
    const text = JSON.stringify({
      pairs: [{ question: 'Where are logs?', answer: 'In the logs folder [1].', sources: [{ doc_id: 'ops.md' }] }],
    });

    // Act
    const pairs = parseFaqFile(text, 'faq.json');

    // Assert
    expect(pairs).toEqual([{ question: 'Where are logs?', answer: 'In the logs folder [1].', sources: [{ docId: 'ops.md' }] }]);
  });

  test.each([
    ['JSON', 'faq.json'],
    ['YAML', 'faq.yml'],
  ])('%s top-level array of pairs: accepted like the pairs object', (_syntax, fileName) => {
    // Arrange
    const text = JSON.stringify([
      { question: 'First?', answer: 'One [1].', sources: [{ doc_id: 'a.md' }] },
      { question: 'Second?', answer: 'Two.' },
    ]);

    // Act
    const pairs = parseFaqFile(text, fileName);

    // Assert
    expect(pairs).toEqual([
      { question: 'First?', answer: 'One [1].', sources: [{ docId: 'a.md' }] },
      { question: 'Second?', answer: 'Two.', sources: [] },
    ]);
  });

  test('answer with sources and no markers: a marker per source appended in order', () => {
    // Arrange
    const text = JSON.stringify([
      { question: 'How?', answer: 'Like this.', sources: [{ doc_id: 'a.md' }, { doc_id: 'b.md', heading: 'Usage' }] },
    ]);

    // Act
    const pairs = parseFaqFile(text, 'faq.json');

    // Assert
    expect(pairs[0]?.answer).toBe('Like this. [1] [2]');
  });

  test('answer without sources and without markers: left unchanged', () => {
    // Arrange
    const text = JSON.stringify([{ question: 'How?', answer: 'Like this.' }]);

    // Act
    const pairs = parseFaqFile(text, 'faq.json');

    // Assert
    expect(pairs).toEqual([{ question: 'How?', answer: 'Like this.', sources: [] }]);
  });

  test.each([
    ['a marker past the last source', 'See [1] and [2].', [{ doc_id: 'a.md' }], /pairs\.1\.answer: marker \[2\] has no source 2/],
    ['a marker [0]', 'See [0] and [1].', [{ doc_id: 'a.md' }], /marker \[0\] has no source/],
    ['a marker and no sources at all', 'See [1].', [], /marker \[1\] has no source 1/],
  ])('answer with %s: rejected naming the file, the pair and the marker', (_case, answer, sources, message) => {
    // Arrange
    const text = JSON.stringify({
      pairs: [
        { question: 'Fine?', answer: 'Yes.' },
        { question: 'Broken?', answer, sources },
      ],
    });

    // Act
    const parsing = () => parseFaqFile(text, 'curated.json');

    // Assert
    expect(parsing).toThrow(message);
    expect(parsing).toThrow('"curated.json"');
  });

  test('answer with markers that leave a source unreferenced: rejected naming the source', () => {
    // Arrange
    const text = JSON.stringify([
      { question: 'Which?', answer: 'The first [1] and the third [3].', sources: [{ doc_id: 'a.md' }, { doc_id: 'b.md' }, { doc_id: 'c.md' }] },
    ]);

    // Act
    const parsing = () => parseFaqFile(text, 'faq.json');

    // Assert
    expect(parsing).toThrow(/"faq\.json": pairs\.0\.answer: source 2 is never referenced/);
  });

  test('invalid YAML: rejected with a message naming the file and the syntax', () => {
    // Arrange
    const text = 'pairs:\n  - question: "unterminated\n    answer: [oops\n';

    // Act
    const parsing = () => parseFaqFile(text, 'broken-faq.yaml');

    // Assert
    expect(parsing).toThrow(/^"broken-faq\.yaml" is not valid YAML: /);
  });

  test('invalid JSON: rejected with a message naming the file and the syntax', () => {
    // Arrange
    const text = '{"pairs": [ { "question": "Where?", } ]';

    // Act
    const parsing = () => parseFaqFile(text, 'broken-faq.json');

    // Assert
    expect(parsing).toThrow(/^"broken-faq\.json" is not valid JSON: /);
  });

  test('invalid JSON in a file with an upper-case .JSON extension: the message says JSON', () => {
    // Arrange
    const text = '{"pairs": [';

    // Act
    const parsing = () => parseFaqFile(text, 'FAQ.JSON');

    // Assert
    expect(parsing).toThrow(/^"FAQ\.JSON" is not valid JSON: /);
  });

  test.each([
    ['a string', '"just a string"'],
    ['an object without pairs', '{"questions": []}'],
  ])('file holding %s instead of pairs: rejected naming the file', (_case, text) => {
    // Act
    const parsing = () => parseFaqFile(text, 'faq.json');

    // Assert
    expect(parsing).toThrow(/^"faq\.json": /);
  });

  test.each([
    ['a blank answer', { pairs: [{ question: 'Blank?', answer: '   ' }] }, 'pairs.0.answer'],
    ['a blank question', { pairs: [{ question: 'Fine?', answer: 'Yes.' }, { question: ' ', answer: 'No.' }] }, 'pairs.1.question'],
    ['an empty source heading', [{ question: 'Q?', answer: 'A.', sources: [{ doc_id: 'a.md', heading: '' }] }], '0.sources.0.heading'],
  ])('file with %s: rejected naming the file and the field path', (_case, data, fieldPath) => {
    // Arrange
    const text = JSON.stringify(data);

    // Act
    const parsing = () => parseFaqFile(text, 'faq.json');

    // Assert
    expect(parsing).toThrow(`"faq.json": ${fieldPath}: `);
  });

  test.each([
    ['a pair without a question', { pairs: [{ question: 'Ok?', answer: 'Ok.' }, { answer: 'No question.' }] }, 'pairs.1.question'],
    ['a pair without an answer', { pairs: [{ question: 'No answer?' }] }, 'pairs.0.answer'],
    ['a source without doc_id', { pairs: [{ question: 'Q?', answer: 'A.', sources: [{ heading: 'H' }] }] }, 'pairs.0.sources.0.doc_id'],
    ['a top-level array pair without a question', [{ answer: 'No question.' }], '0.question'],
  ])('file with %s: rejected naming the file and the field path', (_case, data, fieldPath) => {
    // Arrange
    const text = JSON.stringify(data);

    // Act
    const parsing = () => parseFaqFile(text, 'faq.json');

    // Assert
    expect(parsing).toThrow(`"faq.json": ${fieldPath}: `);
  });
});
