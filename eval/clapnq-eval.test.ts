import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateClapnq } from './clapnq-eval.ts';

function line(id: string, input: string, title: string, text: string, answer: string): string {
  return JSON.stringify({ id, input, passages: [{ title, text, sentences: [text] }], output: [{ answer, selected_sentences: [] }] });
}

describe('evaluateClapnq', () => {
  let folder: string;
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('cites the gold passage and scores the answer text with ROUGE-L against the first reference', async () => {
    folder = await mkdtemp(join(tmpdir(), 'clapnq-test-'));
    await writeFile(
      join(folder, 'clapnq_dev_answerable.jsonl'),
      [
        line('1', 'who painted the mona lisa', 'Mona Lisa', 'The Mona Lisa was painted by Leonardo da Vinci . It hangs in the Louvre . ', 'The Mona Lisa was painted by Leonardo da Vinci.'),
        line('-2', 'when did the titanic strike an iceberg', 'Titanic', 'The Titanic sank in April 1912 after striking an iceberg . ', 'The Titanic sank in April 1912.'),
      ].join('\n'),
    );
    await writeFile(
      join(folder, 'clapnq_dev_unanswerable.jsonl'),
      [
        line('3', 'how tall is the eiffel tower in meters', 'Paris', 'Paris is the capital of France', ''),
        line('4', 'what is the boiling point of mercury', 'Water', 'Water boils at 100 degrees Celsius at sea level', ''),
        line('5', 'who won the 1954 world cup', 'Football', 'Football is played by two teams of eleven players', ''),
        line('6', 'where do koalas sleep', 'Bears', 'Brown bears hibernate during the winter months', ''),
      ].join('\n'),
    );

    const run = await evaluateClapnq(folder);

    expect(run.counts).toEqual({ answerable: 2, unanswerable: 4 });
    expect(run.figures.gold_passage_cited).toBe(1);
    expect(run.figures.answer_rouge_l).toBeGreaterThan(0.6);
  });
});
