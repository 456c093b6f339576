import { fileURLToPath } from 'node:url';

/**
 * The held-out documentation sets, each a dependency's docs as its npm
 * package ships them (`node_modules/<name>/...`) with questions worded as
 * visitors word them (eval/<name>-docs-questions.jsonl), which no weight,
 * threshold or feature is ever fitted on: pino (logging), piscina (a worker
 * thread pool).
 */
export const HELD_OUT_SETS = ['pino', 'piscina'] as const;
export type HeldOutSet = (typeof HELD_OUT_SETS)[number];

/** Each held-out set's docs folder and question file (absolute paths). */
export const HELD_OUT_SOURCES: Record<HeldOutSet, { docs: string; questions: string }> = {
  pino: { docs: fileURLToPath(new URL('../node_modules/pino/docs', import.meta.url)), questions: fileURLToPath(new URL('./pino-docs-questions.jsonl', import.meta.url)) },
  piscina: {
    docs: fileURLToPath(new URL('../node_modules/piscina/docs/docs', import.meta.url)),
    questions: fileURLToPath(new URL('./piscina-docs-questions.jsonl', import.meta.url)),
  },
};
