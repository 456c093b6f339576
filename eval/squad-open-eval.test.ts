import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateSquadOpen } from './squad-open-eval.ts';

function article(title: string, paragraphs: { context: string; qas: { question: string; answer?: string }[] }[]) {
  return {
    title,
    paragraphs: paragraphs.map((paragraph, index) => ({
      context: paragraph.context,
      qas: paragraph.qas.map((qa, position) => ({
        id: `${title}-${index}-${position}`,
        question: qa.question,
        answers: qa.answer ? [{ text: qa.answer, answer_start: paragraph.context.indexOf(qa.answer) }] : [],
        is_impossible: !qa.answer,
      })),
    })),
  };
}

describe('evaluateSquadOpen', () => {
  let folder: string;
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('answers from the ingested report-half articles and abstains on the held-out one', async () => {
    folder = await mkdtemp(join(tmpdir(), 'squad-test-'));
    // Title order: A_ held out (position 0), B_ report, C_ calibration, D_ report, E_ held out (position 4).
    const data = [
      article('A_Volcanoes', [{ context: 'Magma erupts from volcanoes as lava.', qas: [{ question: 'What erupts from a caldera rim?', answer: 'magma' }] }]),
      article('B_Glaciers', [
        { context: 'Penguins live in Antarctica.', qas: [] },
        {
          context: 'Glaciers form when snow accumulates faster than it melts. The Lambert Glacier is the largest glacier in the world.',
          qas: [{ question: 'Which glacier is the largest in the world?', answer: 'Lambert Glacier' }, { question: 'Which glacier is the smallest in Peru?' }],
        },
      ]),
      article('C_Copper', [{ context: 'Copper conducts electricity well.', qas: [{ question: 'What conducts electricity?', answer: 'Copper' }] }]),
      article('D_Pyramids', [
        { context: 'The Great Pyramid of Giza was built for the pharaoh Khufu around 2560 BC.', qas: [{ question: 'For which pharaoh was the Great Pyramid built?', answer: 'Khufu' }] },
      ]),
      article('E_Tides', [{ context: 'Tides are caused by the Moon.', qas: [] }]),
    ];
    const path = join(folder, 'dev-v2.0.json');
    await writeFile(path, JSON.stringify({ version: 'v2.0', data }));

    const run = await evaluateSquadOpen(path);

    expect(run.articles).toEqual({ ingested: 3, heldOut: 2 });
    expect(run.counts).toEqual({ answerable: 2, absent: 1, unanswerable: 1 });
    expect(run.figures.answer_contains_gold).toBe(1);
    expect(run.figures.gold_paragraph_cited).toBe(1);
    expect(run.figures.abstain_on_absent).toBe(1);
    expect(run.figures.auroc).toBe(1);
  });
});
