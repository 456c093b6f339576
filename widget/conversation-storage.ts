/**
 * The visible conversation kept across reloads of one tab (docs/widget.md "What a visitor gets"),
 * in `sessionStorage`: the service stays stateless, the tab remembers what it
 * showed. Only finished turns are kept (an answer still streaming at the
 * reload is lost), at most {@link MAX_STORED_TURNS} of them in at most
 * {@link MAX_STORED_CHARACTERS}, oldest dropped first. Storage that is
 * missing, full or refused (private modes, sandboxed frames) loses the
 * conversation, never the page; stored data that does not read back as
 * turns is ignored.
 */
import { isRecord, readCitation } from './answer-stream.ts';
import type { Turn, TurnStatus } from './conversation.ts';

/** Most turns kept: older ones are dropped first. */
export const MAX_STORED_TURNS = 20;
/**
 * Most characters of the stored JSON: 100,000, about 200 KB of the 5 MiB or so
 * a browser gives an origin's `sessionStorage`, which the page shares.
 */
export const MAX_STORED_CHARACTERS = 100_000;

const FINISHED: readonly TurnStatus[] = ['answered', 'abstained', 'failed', 'stopped'];

/**
 * Stores the finished turns, the newest within the caps; removes the entry when none.
 *
 * @param key one conversation's key, e.g. `kb-widget|inline||https://kb.example.com|support`
 * @param storage where to keep it; default `sessionStorage`
 */
export function saveTurns(key: string, turns: readonly Turn[], storage?: Storage): void {
  let kept = turns.filter((turn) => FINISHED.includes(turn.status)).slice(-MAX_STORED_TURNS);
  let json = JSON.stringify(kept);
  while (kept.length > 0 && json.length > MAX_STORED_CHARACTERS) {
    kept = kept.slice(1);
    json = JSON.stringify(kept);
  }
  try {
    storage ??= sessionStorage;
    if (kept.length === 0) storage.removeItem(key);
    else storage.setItem(key, json);
  } catch {
    // Full or refused: the conversation is not kept, the page goes on.
  }
}

/**
 * @param key as given to {@link saveTurns}
 * @param storage default `sessionStorage`
 * @returns the stored turns, numbered from 1; `[]` when there are none, storage is refused, or they do not read back as turns
 */
export function loadTurns(key: string, storage?: Storage): Turn[] {
  let stored: unknown;
  try {
    stored = JSON.parse((storage ?? sessionStorage).getItem(key) ?? '[]');
  } catch {
    return [];
  }
  if (!Array.isArray(stored)) return [];
  const turns: Turn[] = [];
  for (const value of stored) {
    const turn = readTurn(value, turns.length + 1);
    if (!turn) return [];
    turns.push(turn);
  }
  return turns;
}

function readTurn(value: unknown, id: number): Turn | undefined {
  if (!isRecord(value)) return undefined;
  const { question, status, text, citations, suggestions, failure, provenance, rated } = value;
  const read = Array.isArray(citations) ? citations.map(readCitation) : [undefined];
  if (
    typeof question !== 'string' ||
    !FINISHED.includes(status as TurnStatus) ||
    typeof text !== 'string' ||
    read.includes(undefined) ||
    !Array.isArray(suggestions) ||
    !suggestions.every((suggestion) => typeof suggestion === 'string') ||
    (failure !== undefined && !(isRecord(failure) && typeof failure.reason === 'string'))
  ) {
    return undefined;
  }
  const turn: Turn = { id, question, status: status as TurnStatus, text, citations: read as Turn['citations'], suggestions: suggestions as string[] };
  if (failure) turn.failure = failure as Turn['failure'] & object;
  // Sent back to the service as they are, which checks them.
  if (typeof provenance === 'string') turn.provenance = provenance as Turn['provenance'] & string;
  if (rated === 'up' || rated === 'down') turn.rated = rated;
  return turn;
}
