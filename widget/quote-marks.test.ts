import { describe, expect, test } from 'vitest';
import { parseAnswerMarkdown, plainText, type AnswerBlock, type AnswerInline } from './answer-markdown.ts';
import { answerSentences, markSentences } from './quote-marks.ts';

/** The marked text of a quoted passage, one string per run of adjacent marks, whitespace collapsed. */
function markedText(passage: string, answer: string): string[] {
  const runs: string[] = [];
  let open = false;
  const walk = (nodes: readonly AnswerInline[]) => {
    for (const node of nodes) {
      if (node.type === 'mark') {
        if (!open) runs.push('');
        runs[runs.length - 1] += plainText(node.children);
        open = true;
      } else if (node.type === 'emphasis' || node.type === 'strong' || node.type === 'link') {
        walk(node.children);
      } else {
        open = false;
      }
    }
  };
  const blocks: AnswerBlock[] = markSentences(parseAnswerMarkdown(passage), answerSentences(answer));
  for (const block of blocks) {
    if (block.type === 'paragraph') walk(block.children);
    if (block.type === 'list') for (const item of block.items) walk(item.children);
    open = false;
  }
  return runs.map((run) => run.replace(/\s+/g, ' ').trim());
}

describe('markSentences', () => {
  test('sentence quoted across a line break and code spans, in other case: marked; the passage’s other sentences: not', () => {
    const passage = 'Directories hold files. Use `fs.mkdir()` with\n`recursive: true` to create parents. Closing words here.';

    const marked = markedText(passage, 'USE `fs.mkdir()` with `recursive: true` to create parents [1].');

    expect(marked).toEqual(['Use fs.mkdir() with recursive: true to create parents']);
  });

  test('two sentences of one run and one of another passage: each marked where it is', () => {
    const passage = 'First quoted sentence here. Not quoted in between. Second quoted sentence here.';

    const marked = markedText(passage, 'First quoted sentence here. Second quoted sentence here [1]. Another passage says this [2].');

    expect(marked).toEqual(['First quoted sentence here.', 'Second quoted sentence here']);
  });

  test('sentence cut at 400 characters with an ellipsis: its quoted part is marked', () => {
    const long = `The option ${'goes on and on '.repeat(40)}until the end.`;
    const cut = `${long.slice(0, long.lastIndexOf(' ', 399))}…`;

    const marked = markedText(`Before. ${long}`, `${cut} [1]`);

    expect(marked).toEqual([cut.slice(0, -1)]);
  });

  test('bracketed numbers escaped in the answer (\\[2]) and kept in code: the sentence still matches', () => {
    const passage = 'Read `process.argv[2]` or see [2] for the whole list of arguments.';

    const marked = markedText(passage, 'Read `process.argv[2]` or see \\[2] for the whole list of arguments [1].');

    expect(marked).toEqual(['Read process.argv[2] or see [2] for the whole list of arguments']);
  });

  test('list item quoted without its dash, sentence across emphasis: marked inside the item and the emphasis', () => {
    const passage = 'Options:\n\n- The **recursive** option creates parent directories.\n- Another item entirely.';

    const marked = markedText(passage, 'The recursive option creates parent directories [1].');

    expect(marked).toEqual(['The recursive option creates parent directories']);
  });

  test('a generated answer that rephrases, or short pieces such as "Yes.": nothing marked', () => {
    const passage = 'Yes. Set the recursive option to true to create parents.';

    expect(markedText(passage, 'You can pass recursive so that parents get created [1].')).toEqual([]);
    expect(markedText(passage, 'Yes [1].')).toEqual([]);
  });

  test('code blocks of the passage: left as they are', () => {
    const blocks = parseAnswerMarkdown('```\nconst quoted = sentence.here();\n```');

    expect(markSentences(blocks, answerSentences('const quoted = sentence.here(); [1]'))).toEqual(blocks);
  });
});
