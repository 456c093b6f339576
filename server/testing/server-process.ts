import { spawn, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { StoreLocation } from '../store/open-store.ts';

/**
 * A server process (`server/main.ts`, as `npm start` runs it, without the
 * widget build) for the tests that start the service as a whole: replicas
 * on one PostgreSQL database, start-up settings such as `KB_DEMO_SEED`.
 * Also the console and widget calls those tests make on it.
 */
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A started server process. */
export interface ServerProcess {
  process: ChildProcess;
  /** The API's base URL from the banner, e.g. `http://localhost:41234`. */
  baseUrl: string;
  /** Everything it printed up to the moment it was ready (its banner included). */
  output: string;
}

/**
 * Starts `server/main.ts` on an ephemeral port, without a demo page and
 * without dense retrieval (embedding the demo corpus takes minutes of both
 * cores, which would starve the other test files) unless `env` says
 * otherwise, and waits for its banner.
 *
 * @param env variables added to the test's environment (the store's, `KB_*`)
 * @param readyWithinMs how long the start may take before it counts as failed
 * @throws Error with the output when it exits or is not ready in time
 */
export function startServerProcess(env: Record<string, string>, readyWithinMs = 90_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: '0', KB_DEMO_PORT: '0', KB_EMBEDDING: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server not ready within ${readyWithinMs / 1000} s:\n${output}`)), readyWithinMs);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      // The banner is written at once, so the chunk with its first line holds all of it.
      const match = /serving (http:\/\/localhost:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ process: child, baseUrl: match[1]!, output });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

/** Stops a server process (SIGTERM, its orderly shutdown) and waits for it to exit. */
export async function stopServerProcess(server: ServerProcess | undefined): Promise<void> {
  if (!server || server.process.exitCode !== null || server.process.signalCode !== null) return;
  const exited = new Promise((resolve) => server.process.once('exit', resolve));
  server.process.kill('SIGTERM');
  await exited;
}

/** The variables that point a server process at a store (`KB_DATA_DIR`, or `DATABASE_URL` and `KB_PG_SCHEMA`). */
export function storeEnvironment(location: StoreLocation): Record<string, string> {
  if (location.kind === 'sqlite') return { KB_DATA_DIR: dirname(location.path) };
  return { DATABASE_URL: location.url, ...(location.schema === undefined ? {} : { KB_PG_SCHEMA: location.schema }) };
}

/** Signs in through a server's console API; returns the session cookie. */
export async function signIn(server: ServerProcess, email: string, password: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}/console/api/session`, {
    method: 'POST',
    headers: { Origin: server.baseUrl, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ');
}

/** One console API call with a session cookie, from the server's own origin. */
export function consoleCall(server: ServerProcess, cookie: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.baseUrl}/console/api${path}`, {
    method,
    headers: { Origin: server.baseUrl, Cookie: cookie, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Issues a widget token for any origin through the console API. */
export async function issueToken(server: ServerProcess, cookie: string, kbId: string): Promise<{ token: string; id: string }> {
  const response = await consoleCall(server, cookie, 'POST', `/knowledge-bases/${kbId}/tokens`, { allowed_origins: [] });
  expect(response.status).toBe(201);
  return (await response.json()) as { token: string; id: string };
}

/** Asks a question on the widget's JSON endpoint. */
export function ask(server: ServerProcess, token: string, kbId: string, question: string): Promise<Response> {
  return fetch(`${server.baseUrl}/kb-api/api/v1/kb/${kbId}/widget/query`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ question }),
  });
}
