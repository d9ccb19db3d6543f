import { spawn } from 'node:child_process';

/**
 * Runs `script` in a child Node process until it prints CRASH-POINT, then kills it with SIGKILL. Rejects
 * with what it printed when it exits any other way.
 */
export function killAtCrashPoint(script: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('CRASH-POINT')) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL'
        ? resolve()
        : reject(new Error(`the node exited (${code}) before its crash point:\n${output}\n${errors}`)),
    );
  });
}

/**
 * The child's side: prints CRASH-POINT and never goes on. A timer keeps the process alive until the
 * kill arrives: a pending promise alone does not, and with no timer or socket left Node exits (code 13,
 * an unsettled top-level await) before the parent's SIGKILL reaches it.
 */
export function stopAtCrashPoint(): Promise<never> {
  process.stdout.write('CRASH-POINT\n');
  setInterval(() => undefined, 60_000);
  return new Promise<never>(() => undefined);
}
