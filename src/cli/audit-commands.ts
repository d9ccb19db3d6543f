import { readFileSync } from 'node:fs';
import { ChainCheck, verifyAudit, type AuditVerification } from '../audit/audit-verify.js';
import type { AuditListOptions, AuditRecord } from '../store/audit-log.js';
import type { CommandContext } from './context.js';
import { CliError, ExitCode } from './errors.js';

const PAGE = 1000;

/** `wardrik audit export [--since N|TIME]`: the trail as JSON lines, one entry a line, oldest first. */
export async function auditExport(ctx: CommandContext, options: { readonly since?: AuditListOptions }): Promise<void> {
  await ctx.withStore(async (store) => {
    let from = options.since?.from ?? 1;
    const after = options.since?.since;
    for (;;) {
      const page = await store.listAudit({ from, limit: PAGE, ...(after === undefined ? {} : { since: after }) });
      for (const entry of page) ctx.io.out(`${JSON.stringify(entry)}\n`);
      if (page.length < PAGE) return;
      from = page[page.length - 1]!.seq + 1;
    }
  });
}

/**
 * `wardrik audit verify [--signing-key NAME] [--file EXPORT]`: recomputes the chain of the store's trail (or
 * of an export) and, given the key, every signature. A trail that does not verify exits `tampered`, naming
 * the first entry changed, removed or moved.
 */
export async function auditVerify(
  ctx: CommandContext,
  options: { readonly signingKey?: string; readonly file?: string },
): Promise<void> {
  let key: string | undefined;
  if (options.signingKey !== undefined) {
    key = ctx.io.env[options.signingKey];
    if (key === undefined || key === '')
      throw new CliError(
        ExitCode.usage,
        `--signing-key names the environment variable "${options.signingKey}", which is not set. Set it to the trail's key (audit.signingKey's credential), or leave --signing-key out to check the chain alone.`,
      );
  }
  const where = options.file === undefined ? `store ${ctx.storeName}` : `export ${options.file}`;
  const result =
    options.file === undefined
      ? await ctx.withStore((store) => verifyAudit(store, key))
      : verifyLines(readExport(options.file), key, options.file);
  const { problem } = result;
  if (problem !== undefined)
    throw new CliError(
      ExitCode.tampered,
      `The audit trail of ${where} does not verify: ${problem.message}. Entries from ${problem.seq} on cannot be trusted; compare them with an earlier export.`,
    );
  ctx.print({ ok: true, ...result, signed: key !== undefined }, () => describe(result, where, key !== undefined));
}

function describe(result: AuditVerification, where: string, signed: boolean): string {
  if (result.entries === 0) return `The audit trail of ${where} is empty.`;
  const checked = signed ? 'chain and signatures check out' : 'chain checks out (no key given: signatures not checked)';
  return (
    `The audit trail of ${where} verifies: ${result.entries} entries, ${result.first} to ${result.head.seq}; the ${checked}.\n` +
    `Head: entry ${result.head.seq}, hash ${result.head.hash}. Keep it elsewhere to tell later whether entries were cut from the end.`
  );
}

function readExport(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(ExitCode.notFound, `Cannot read the export ${file}: ${(error as Error).message}.`);
  }
}

/** Checks an export's lines in the order written; a line that is not an entry is itself a changed entry. */
function verifyLines(text: string, key: string | undefined, file: string): AuditVerification {
  const check = new ChainCheck(key);
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  for (const [i, line] of lines.entries()) {
    let entry: AuditRecord;
    try {
      entry = JSON.parse(line) as AuditRecord;
    } catch {
      throw new CliError(
        ExitCode.usage,
        `Line ${i + 1} of ${file} is not JSON: it is not an export of wardrik audit export.`,
      );
    }
    if (typeof entry?.seq !== 'number' || typeof entry.hash !== 'string' || typeof entry.prev !== 'string')
      throw new CliError(
        ExitCode.usage,
        `Line ${i + 1} of ${file} is not an audit entry (it lacks seq, prev or hash).`,
      );
    if (check.add(entry) !== undefined) break;
  }
  return check.finish();
}
