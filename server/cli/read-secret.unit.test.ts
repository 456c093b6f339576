import { PassThrough, Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { readSecret } from './read-secret.ts';

/** Collects what was written to it. */
function sink(): PassThrough & { text(): string } {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => {
    written += chunk.toString();
  });
  return Object.assign(stream, { text: () => written });
}

/** A stand-in for a terminal: `isTTY`, raw mode recorded, keystrokes typed in later. */
function terminal(): PassThrough & { isTTY: true; raw: boolean[]; setRawMode(raw: boolean): void } {
  const stream = new PassThrough() as PassThrough & { isTTY: true; raw: boolean[]; setRawMode(raw: boolean): void };
  stream.isTTY = true;
  stream.raw = [];
  stream.setRawMode = (raw) => stream.raw.push(raw);
  return stream;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('readSecret from a pipe', () => {
  test('several lines: the first, without its CRLF, and nothing printed', async () => {
    const output = sink();

    const secret = await readSecret('Password: ', Readable.from(['a long password\r\n', 'second line\n']), output);

    expect(secret).toBe('a long password');
    expect(output.text()).toBe('');
  });

  test('empty input: refused', async () => {
    await expect(readSecret('Password: ', Readable.from(['\n']), sink())).rejects.toThrow('No password on standard input');
  });
});

describe('readSecret from a terminal', () => {
  test('typed twice with a correction: the password, prompts only, never an echo, raw mode restored', async () => {
    // Arrange
    const input = terminal();
    const output = sink();

    // Act
    const reading = readSecret('New password: ', input, output);
    input.write('a long passwore\u007fd\r');
    await tick();
    input.write('a long password\r');
    const secret = await reading;

    // Assert
    expect(secret).toBe('a long password');
    expect(output.text()).toBe('New password: \nRepeat it: \n');
    expect(input.raw).toEqual([true, false, true, false]);
  });

  test('the two entries differ: refused', async () => {
    const input = terminal();

    const reading = readSecret('New password: ', input, sink());
    input.write('a long password\r');
    await tick();
    input.write('another password\r');

    await expect(reading).rejects.toThrow('The two passwords differ; nothing changed');
  });

  test('Ctrl-C: cancelled, raw mode restored', async () => {
    const input = terminal();

    const reading = readSecret('New password: ', input, sink());
    input.write('a long\u0003');

    await expect(reading).rejects.toThrow('Cancelled; nothing changed');
    expect(input.raw).toEqual([true, false]);
  });
});
