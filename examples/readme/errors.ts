// Docs "Errors": branch on a thrown error's code, a closed union.
import 'reflect-metadata';
import { Wardrik, WardrikError, type WardrikErrorCode } from '../../src/index.js';

const fixes: Record<WardrikErrorCode, string> = {
  configuration: 'fix the options or the decorators, then start again',
  timeout: 'try again later',
  unavailable: 'the service is down: try again later',
  invalid_arguments: 'fix the changed arguments and approve again',
  invalid_answer: 'answer the item in the shape the message gives',
  store: 'check the database',
  journal_newer: 'upgrade Wardrik to the version that wrote the journal',
  journal_malformed: 'restore the row from a backup',
  conflict: 'someone answered first: reload',
  not_found: 'check the id',
  closed: 'open a new Wardrik',
  egress_refused: 'that server address is not allowed',
};

try {
  await Wardrik.create({ store: 'memory:', agents: { resultPollMs: 3e9 } });
} catch (error) {
  if (!(error instanceof WardrikError)) throw error;
  console.log(error.code, '->', fixes[error.code]); // configuration -> fix the options …
}
