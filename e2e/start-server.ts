import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs `npm start` the way a new user does, for the end-to-end tests: in the
 * project folder, with the given environment added, in its own process group
 * (so stopping it stops tsx and node too).
 */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface StartedServer {
  process: ChildProcess;
  /** Everything it printed up to the moment it was ready. */
  output: string;
  /** The API's base URL it printed, e.g. `http://localhost:41234`. */
  apiUrl: string;
}

/**
 * @param env variables added to the test's environment (PORT, KB_DATA_DIR, ...)
 * @param ready what the output must show before the server counts as started
 * @throws Error with the output when it exits or is not ready within 120 s
 */
export function startServer(env: Record<string, string>, ready: (output: string) => boolean = () => true): Promise<StartedServer> {
  const child = spawn('npm', ['start'], {
    cwd: PROJECT_ROOT,
    // Dense retrieval off unless a test asks for it: embedding the demo corpus takes minutes on 2 cores,
    // and the journeys test the widget and console, not retrieval (server/retrieval and eval/ do).
    env: { ...process.env, LOG_LEVEL: 'warn', KB_EMBEDDING: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`npm start was not ready within 120 s:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving (http:\/\/localhost:\d+)/.exec(output);
      if (match && ready(output)) {
        clearTimeout(timer);
        resolve({ process: child, output, apiUrl: match[1]! });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  });
}

/**
 * Runs the token command the start banner prints, as a user pastes it into
 * another terminal: a shell in the project folder without the server's
 * variables (`KB_*`, `DATABASE_URL`).
 *
 * @param output what `npm start` printed
 * @returns the token the command put into `$TOKEN`
 */
export async function issueTokenAsPrinted(output: string): Promise<string> {
  const [tokenLine] = bannerCommands(output);
  const issued = await inOtherTerminal(`${tokenLine}\nprintf '%s\\n' "$TOKEN"`);
  return issued.trim().split('\n').at(-1)!;
}

/**
 * The banner's two commands pasted in order into one shell, as a new user
 * does: the token into `$TOKEN`, then the `curl` that asks with it.
 *
 * @returns what the `curl` printed (the JSON answer)
 */
export async function askAsPrinted(output: string): Promise<string> {
  const [tokenLine, curl] = bannerCommands(output);
  return inOtherTerminal(`${tokenLine}\n${curl}`);
}

/** The banner's token line and its question (the `curl` with its continuation lines), as printed. */
function bannerCommands(output: string): [string, string] {
  const lines = output.split('\n');
  const tokenAt = lines.findIndex((line) => line.startsWith('Get a widget token'));
  const askAt = lines.findIndex((line) => line.startsWith('Then ask a question'));
  if (tokenAt < 0 || askAt < 0) throw new Error(`The banner prints no token and question commands:\n${output}`);
  const curl: string[] = [];
  for (const line of lines.slice(askAt + 1)) {
    if (line.trim() === '') break;
    curl.push(line.trim());
  }
  return [lines[tokenAt + 1]!.trim(), curl.join('\n')];
}

/** Runs a script in a shell in the project folder without this server's variables, as in another terminal; resolves to its stdout. */
async function inOtherTerminal(script: string): Promise<string> {
  const otherTerminal = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('KB_') && name !== 'DATABASE_URL'));
  const { stdout } = await promisify(execFile)('sh', ['-c', script], { cwd: PROJECT_ROOT, env: otherTerminal });
  return stdout;
}

/** Stops a server started by {@link startServer} and waits for it to exit. */
export async function stopServer(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
}

/** `npm start` on a fresh data folder with its demo page, as {@link startDemo} returns it. */
export interface StartedDemo extends StartedServer {
  dataDir: string;
  /** The demo page's port (`http://localhost:<demoPort>/`). */
  demoPort: number;
  /** Stops the server and removes its data folder. */
  stop(): Promise<void>;
}

/**
 * Runs `npm start` on an empty data folder of its own, with the demo page on
 * a free port, and waits until the demo page is served. When another process
 * takes the port between the probe and the server's bind, it starts again on
 * a new port and a new data folder (up to {@link DEMO_PORT_ATTEMPTS} times).
 *
 * @param prefix the data folder's name prefix (`kb-e2e-feedback-`)
 * @param env variables added besides PORT, KB_DEMO_PORT and KB_DATA_DIR
 */
export async function startDemo(prefix: string, env: Record<string, string> = {}): Promise<StartedDemo> {
  for (let attempt = 1; ; attempt++) {
    const dataDir = await mkdtemp(join(tmpdir(), prefix));
    const demoPort = await freePort();
    try {
      const started = await startServer({ PORT: '0', KB_DEMO_PORT: String(demoPort), KB_DATA_DIR: dataDir, ...env }, (output) =>
        output.includes('demo page: http://localhost:'),
      );
      return demoStarted(started, dataDir, demoPort);
    } catch (error) {
      // The port was free when probed, but another process (a test's server, an outgoing connection's local
      // port) may take it before `npm start` binds it: probe another one.
      await rm(dataDir, { recursive: true, force: true });
      const taken = error instanceof Error && error.message.includes(`Port ${demoPort} is already in use`);
      if (!taken || attempt === DEMO_PORT_ATTEMPTS) throw error;
    }
  }
}

/** How many free ports {@link startDemo} tries for the demo page before it gives up. */
const DEMO_PORT_ATTEMPTS = 3;

function demoStarted(started: StartedServer, dataDir: string, demoPort: number): StartedDemo {
  return {
    ...started,
    dataDir,
    demoPort,
    async stop() {
      await stopServer(started.process);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A port free right now on 127.0.0.1 (for the demo page, which the server binds next). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Debian's Chromium, launched headless without any network of its own. */
export const CHROMIUM_LAUNCH = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
};
