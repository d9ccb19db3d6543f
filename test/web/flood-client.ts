/**
 * A hostile client, run as a child process so its own buffers are not counted in the server's memory:
 * opens `count` connections, each a POST to `url` declaring a body of `bytes` (or chunked, with
 * `chunked`), sends all of it but the last byte, and holds the connection open. It tells its parent,
 * once every connection has an answer or was closed, which status each got (null for none), then
 * keeps the connections it still has until killed.
 */
import { connect } from 'node:net';

const [url, countText, bytesText, mode] = process.argv.slice(2);
const target = new URL(url!);
const count = Number(countText);
const bytes = Number(bytesText);
const chunked = mode === 'chunked';

const statuses: (number | null)[] = new Array<number | null>(count).fill(null);
let settled = 0;
const settle = (): void => {
  if (++settled === count) process.send!({ statuses });
};

for (let i = 0; i < count; i++) {
  const socket = connect(Number(target.port), target.hostname);
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    settle();
  };
  socket.on('error', finish);
  socket.on('close', finish);
  socket.setEncoding('latin1');
  socket.on('data', (text: string) => {
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
    if (status !== undefined && statuses[i] === null) statuses[i] = Number(status);
    finish();
  });
  const length = chunked ? 'transfer-encoding: chunked' : `content-length: ${bytes}`;
  socket.write(
    `POST ${target.pathname}sign-in HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/x-www-form-urlencoded\r\n${length}\r\n\r\n`,
  );
  const body = Buffer.alloc(bytes - 1, 'a');
  body.write('token=', 'latin1');
  socket.write(
    chunked ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]) : body,
  );
}
