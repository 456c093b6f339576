import { describe, expect, test } from 'vitest';
import { loadConfig } from './config.ts';

const DEFAULTS = { abstentionThreshold: 0.5 };

describe('loadConfig, chat model settings', () => {
  test('no KB_LLM_* variables: no chat model (extractive answers only)', () => {
    expect(loadConfig({}, DEFAULTS).llm).toBeUndefined();
  });

  test('base URL and model: the chat model with no key and a 30 s timeout', () => {
    const config = loadConfig({ KB_LLM_BASE_URL: 'http://127.0.0.1:11434/v1', KB_LLM_MODEL: 'qwen2.5:3b' }, DEFAULTS);

    expect(config.llm).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5:3b', apiKey: undefined, timeoutMs: 30_000, maxTokens: 1_024 });
  });

  test('key and timeout in seconds given: key kept, timeout in milliseconds', () => {
    const config = loadConfig(
      {
        KB_LLM_BASE_URL: 'https://api.example.com/v1',
        KB_LLM_MODEL: 'model-a',
        KB_LLM_API_KEY: 'sk-test',
        KB_LLM_TIMEOUT_SECONDS: '2.5',
      },
      DEFAULTS,
    );

    expect(config.llm).toMatchObject({ apiKey: 'sk-test', timeoutMs: 2_500 });
  });

  test('base URL without a model: configuration error naming KB_LLM_MODEL', () => {
    expect(() => loadConfig({ KB_LLM_BASE_URL: 'http://127.0.0.1:11434/v1' }, DEFAULTS)).toThrow(
      /KB_LLM_MODEL is required when KB_LLM_BASE_URL is set/,
    );
  });

  test('base URL that is not an http(s) URL: configuration error naming the variable and its value', () => {
    expect(() => loadConfig({ KB_LLM_BASE_URL: 'localhost:11434', KB_LLM_MODEL: 'm' }, DEFAULTS)).toThrow(
      'KB_LLM_BASE_URL="localhost:11434"',
    );
  });

  test('timeout of zero: configuration error', () => {
    expect(() =>
      loadConfig({ KB_LLM_BASE_URL: 'http://127.0.0.1:11434/v1', KB_LLM_MODEL: 'm', KB_LLM_TIMEOUT_SECONDS: '0' }, DEFAULTS),
    ).toThrow(/KB_LLM_TIMEOUT_SECONDS="0"/);
  });

  test('configuration error with an API key set: the key is not in the message', () => {
    let message = '';
    try {
      loadConfig({ KB_LLM_BASE_URL: 'nope', KB_LLM_API_KEY: 'sk-secret-value' }, DEFAULTS);
    } catch (error) {
      message = (error as Error).message;
    }

    expect(message).toContain('KB_LLM_BASE_URL');
    expect(message).not.toContain('sk-secret-value');
  });
});

describe('loadConfig, ports', () => {
  test('nothing set: API on 8787, demo page on 5173', () => {
    const config = loadConfig({}, DEFAULTS);

    expect([config.port, config.demoPort]).toEqual([8787, 5173]);
  });

  test('KB_DEMO_PORT=0: the demo page is off', () => {
    expect(loadConfig({ KB_DEMO_PORT: '0' }, DEFAULTS).demoPort).toBe(0);
  });

  test.each(['70000', '-1', 'abc', '51.5'])('KB_DEMO_PORT=%s: configuration error naming the variable and its value', (value) => {
    expect(() => loadConfig({ KB_DEMO_PORT: value }, DEFAULTS)).toThrow(`KB_DEMO_PORT=${JSON.stringify(value)}`);
  });
});

describe('loadConfig, demo knowledge base', () => {
  test('nothing set: the demo knowledge base is seeded', () => {
    expect(loadConfig({}, DEFAULTS).demoSeed).toBe(true);
  });

  test.each([
    ['on', true],
    ['off', false],
  ])('KB_DEMO_SEED=%s: seeded is %s', (value, seeded) => {
    expect(loadConfig({ KB_DEMO_SEED: value }, DEFAULTS).demoSeed).toBe(seeded);
  });

  test.each(['0', 'false', 'OFF', 'no'])('KB_DEMO_SEED=%s: configuration error naming the variable, its value and the allowed values', (value) => {
    expect(() => loadConfig({ KB_DEMO_SEED: value }, DEFAULTS)).toThrow(`KB_DEMO_SEED=${JSON.stringify(value)}: Invalid option: expected one of "on"|"off"`);
  });
});

describe('loadConfig, first owner', () => {
  test('no KB_OWNER_PASSWORD: no configured password (a random one is generated at start)', () => {
    expect(loadConfig({}, DEFAULTS).ownerPassword).toBeUndefined();
  });

  test('KB_OWNER_PASSWORD of 12 characters: kept as given', () => {
    expect(loadConfig({ KB_OWNER_PASSWORD: 'correct-hors' }, DEFAULTS).ownerPassword).toBe('correct-hors');
  });

  test('KB_OWNER_PASSWORD of 11 characters: configuration error naming the variable, the rule and not the value', () => {
    let message = '';
    try {
      loadConfig({ KB_OWNER_PASSWORD: 'short-pass1' }, DEFAULTS);
    } catch (error) {
      message = (error as Error).message;
    }

    expect(message).toContain('KB_OWNER_PASSWORD=(hidden): Password must be at least 12 characters long; this one has 11');
    expect(message).not.toContain('short-pass1');
  });
});

describe('loadConfig, website import', () => {
  test('KB_IMPORT_ALLOW_PRIVATE_ADDRESSES: none by default; true for all; a list of addresses; anything else refused naming it', () => {
    expect(loadConfig({}, DEFAULTS).importAllowPrivateAddresses).toBe(false);
    expect(loadConfig({ KB_IMPORT_ALLOW_PRIVATE_ADDRESSES: 'true' }, DEFAULTS).importAllowPrivateAddresses).toBe(true);
    expect(loadConfig({ KB_IMPORT_ALLOW_PRIVATE_ADDRESSES: '10.0.0.5, fd00::7' }, DEFAULTS).importAllowPrivateAddresses).toEqual(['10.0.0.5', 'fd00::7']);
    expect(() => loadConfig({ KB_IMPORT_ALLOW_PRIVATE_ADDRESSES: 'intranet.local' }, DEFAULTS)).toThrow(
      'KB_IMPORT_ALLOW_PRIVATE_ADDRESSES="intranet.local": must be true, false or IP addresses separated by commas ("intranet.local" is not one)',
    );
  });
});
