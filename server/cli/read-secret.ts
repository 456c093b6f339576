import type { Readable, Writable } from 'node:stream';

/**
 * Reads a secret (a new password) for the command line without echoing it.
 *
 * - From a terminal: prints `prompt`, reads one line with echo off (raw
 *   mode; Backspace erases, Ctrl-C or Ctrl-D on an empty line cancels), then
 *   asks again with `Repeat it: ` and refuses a mismatch.
 * - From a pipe or file (`printf '%s\n' "$PASSWORD" | npm run kb -- …`):
 *   the first line of the input, without its line break; nothing printed.
 *
 * @throws Error when cancelled, when the two entries differ, or when the input is empty
 */
export async function readSecret(
  prompt: string,
  input: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown } = process.stdin,
  output: Writable = process.stderr,
): Promise<string> {
  if (!input.isTTY || input.setRawMode === undefined) {
    const text = await readAll(input);
    const firstLine = /^[^\r\n]*/.exec(text)![0];
    if (firstLine === '') throw new Error('No password on standard input');
    return firstLine;
  }
  const terminal = input as Readable & { setRawMode: (raw: boolean) => unknown };
  const first = await readHiddenLine(prompt, terminal, output);
  const second = await readHiddenLine('Repeat it: ', terminal, output);
  if (first !== second) throw new Error('The two passwords differ; nothing changed');
  return first;
}

async function readAll(input: Readable): Promise<string> {
  let text = '';
  input.setEncoding('utf8');
  for await (const chunk of input) text += chunk as string;
  return text;
}

function readHiddenLine(
  prompt: string,
  input: Readable & { setRawMode: (raw: boolean) => unknown },
  output: Writable,
): Promise<string> {
  output.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (): void => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
    };
    const onData = (chunk: string): void => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (character === '\u0003' || (character === '\u0004' && value === '')) {
          finish();
          reject(new Error('Cancelled; nothing changed'));
          return;
        }
        if (character === '\u007f' || character === '\b') {
          value = [...value].slice(0, -1).join('');
        } else if (character >= ' ') {
          value += character;
        }
      }
    };
    input.on('data', onData);
  });
}
