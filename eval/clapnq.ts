import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonLines } from './scifact.ts';

/**
 * ClapNQ dev (Rosenthal et al., 2024, arXiv:2404.02103) as stored in
 * `shared/eval/clapnq/`: 300 answerable and 300 unanswerable questions, each
 * with exactly one Wikipedia passage.
 */

export interface ClapnqQuestion {
  id: string;
  question: string;
  passage: { title: string; text: string };
  /** The first output's answer (the reference); "" for unanswerable questions. */
  reference: string;
  answerable: boolean;
}

interface RawClapnq {
  id: string;
  input: string;
  passages: { title: string; text: string }[];
  output: { answer: string }[];
}

/**
 * @param folder the `clapnq/` folder
 * @returns answerable questions, then unanswerable ones, each in file order
 * @throws Error when a file is missing or a question has no passage
 */
export async function loadClapnq(folder: string): Promise<ClapnqQuestion[]> {
  const questions: ClapnqQuestion[] = [];
  for (const answerable of [true, false]) {
    const file = join(folder, `clapnq_dev_${answerable ? 'answerable' : 'unanswerable'}.jsonl`);
    for (const raw of jsonLines<RawClapnq>(await readFile(file, 'utf8'))) {
      const [passage] = raw.passages;
      if (!passage) throw new Error(`ClapNQ question ${raw.id} has no passage`);
      questions.push({
        id: raw.id,
        question: raw.input,
        passage: { title: passage.title, text: passage.text },
        reference: raw.output[0]?.answer ?? '',
        answerable,
      });
    }
  }
  return questions;
}
