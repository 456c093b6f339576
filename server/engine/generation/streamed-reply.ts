import { NO_ANSWER } from './answer-prompt.ts';

/**
 * A chat model's reply as it streams in, and the part of it that may be shown
 * so far: trimmed at both ends, and nothing while the trimmed reply could
 * still turn out to be {@link NO_ANSWER} (a refusal is never shown, with or
 * without whitespace after it). Growing the reply
 * only ever extends what may be shown.
 *
 * Work is linear in the reply: each delta is looked at once (leading and
 * trailing whitespace found by scanning the delta, not the reply), and the
 * whole text is joined once, when asked for. Appending each delta to one
 * string and re-trimming it would be quadratic: a model streaming 64 MiB once
 * kept the server's main thread busy for 30 s.
 */
export class StreamedReply {
  /** The deltas received, in order. */
  readonly #parts: string[] = [];
  /** Characters received. */
  #length = 0;
  /** Whether text other than leading whitespace has arrived. */
  #started = false;
  /** Whether text has been released for showing (the reply can no longer be NO_ANSWER). */
  #released = false;
  /** The reply trimmed at both ends while it is still a prefix of NO_ANSWER (so at most that long, plus one delta). */
  #held = '';
  /** Trailing whitespace of what was received, held back until more text follows it. */
  #pendingWhitespace = '';

  /** Characters received so far. */
  get length(): number {
    return this.#length;
  }

  /**
   * Adds the next delta of the reply.
   *
   * @returns the text that may now be shown after what was shown before
   *   (empty when nothing new may be shown)
   */
  push(delta: string): string {
    if (delta === '') return '';
    this.#parts.push(delta);
    this.#length += delta.length;
    let text = delta;
    if (!this.#started) {
      text = delta.slice(leadingWhitespace(delta));
      if (text === '') return '';
      this.#started = true;
    }
    const piece = this.#extend(text);
    if (this.#released) return piece;
    this.#held += piece;
    if (NO_ANSWER.startsWith(this.#held)) return '';
    // No longer a possible refusal: release what was held.
    this.#released = true;
    const held = this.#held;
    this.#held = '';
    return held;
  }

  /** The whole reply as received (joined once per call). */
  text(): string {
    return this.#parts.join('');
  }

  /** Shows `delta` after what was shown, its trailing whitespace held back until text follows it. */
  #extend(delta: string): string {
    const end = trailingWhitespaceStart(delta);
    if (end === 0) {
      this.#pendingWhitespace += delta;
      return '';
    }
    const shown = this.#pendingWhitespace + delta.slice(0, end);
    this.#pendingWhitespace = delta.slice(end);
    return shown;
  }
}

/** Characters of whitespace at the start of `text` (as `String.prototype.trimStart` counts them). */
function leadingWhitespace(text: string): number {
  let index = 0;
  while (index < text.length && isWhitespace(text, index)) index += 1;
  return index;
}

/** Index where `text`'s trailing whitespace starts (`text.length` when there is none, 0 when it is all whitespace). */
function trailingWhitespaceStart(text: string): number {
  let index = text.length;
  while (index > 0 && isWhitespace(text, index - 1)) index -= 1;
  return index;
}

/** Whether the character at `index` is whitespace as `String.prototype.trim` removes it. */
function isWhitespace(text: string, index: number): boolean {
  const character = text[index]!;
  return character.trim() === '';
}
