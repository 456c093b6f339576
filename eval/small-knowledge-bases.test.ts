import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocsQuestion } from './docs-questions.ts';
import { cutIntoSmallKnowledgeBases, questionsOfPiece } from './small-knowledge-bases.ts';

let root: string;

/** Writes a page of `bytes` bytes at a path relative to the corpus root. */
async function page(path: string, bytes: number): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), 'x'.repeat(bytes));
}

function question(id: string, gold: string[]): DocsQuestion {
  return { id, question: id, expect: gold.length > 0 ? 'answer' : 'abstain', gold, split: 'fit' };
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'small-kbs-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('cutIntoSmallKnowledgeBases', () => {
  it('keeps a folder within the size whole, and cuts a larger one into its subfolders and runs of its own pages', async () => {
    await page('concepts/storage/volumes.md', 40);
    await page('concepts/storage/classes/storage-classes.md', 30);
    await page('tasks/a.md', 60);
    await page('tasks/b.md', 30);
    await page('tasks/c.md', 50);
    await page('tasks/huge.md', 500);
    await page('tasks/notes.txt', 10);

    const pieces = await cutIntoSmallKnowledgeBases(root, 100);

    expect(pieces.map((piece) => ({ name: piece.name, files: piece.files.map((file) => relative(root, file)), bytes: piece.bytes }))).toEqual([
      { name: 'concepts', files: ['concepts/storage/classes/storage-classes.md', 'concepts/storage/volumes.md'], bytes: 70 },
      { name: 'tasks/a.md', files: ['tasks/a.md', 'tasks/b.md'], bytes: 90 },
      { name: 'tasks/c.md', files: ['tasks/c.md'], bytes: 50 },
      { name: 'tasks/huge.md', files: ['tasks/huge.md'], bytes: 500 },
    ]);
    // A whole folder is ingested as a folder (ids relative to it); a run as its files (ids their names).
    expect(pieces[0]!.paths).toEqual([join(root, 'concepts')]);
    expect(pieces[1]!.paths).toEqual([join(root, 'tasks/a.md'), join(root, 'tasks/b.md')]);
  });
});

describe('questionsOfPiece', () => {
  it("names a question's gold pages as the piece's document ids, and gives no gold to a question answered elsewhere", async () => {
    await page('concepts/storage/volumes.md', 40);
    await page('concepts/storage/classes/storage-classes.md', 30);
    await page('tasks/a.md', 500);
    const [concepts] = await cutIntoSmallKnowledgeBases(root, 100);

    const asked = questionsOfPiece(root, concepts!, [
      question('both', ['concepts/storage/volumes.md', 'tasks/a.md']),
      question('elsewhere', ['tasks/a.md']),
      question('off-topic', []),
    ]);

    expect(asked.map(({ question, gold }) => [question.id, gold])).toEqual([
      ['both', ['storage/volumes.md']],
      ['elsewhere', []],
      ['off-topic', []],
    ]);
  });
});
