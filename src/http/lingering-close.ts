import type { Socket } from 'node:net';
import type { Timers } from '../clock.js';

/** How long a connection whose body was refused unread may still send before it is cut. */
const LINGER_MS = 2_000;

/**
 * Makes the close that follows an answer with `connection: close` a lingering one, for a request whose
 * body was refused unread. Closing a socket that still holds unread bytes makes the kernel send a reset,
 * and a reset can discard the answer before the client read it: 1 of 400 refused sign-ins got no 413
 * under load. So the answer is sent and the write side closed, and the socket is cut only `LINGER_MS`
 * later, time for the client to read it. What it still sends meanwhile is not read: it waits in the
 * kernel's buffer, not this process's memory (read to be thrown away, it grew the flood test by 66 MB).
 * Node's HTTP server calls `destroySoon()` once such an answer is finished; this socket's does the above.
 */
export function lingerAfterAnswer(socket: Socket, timers: Timers): void {
  socket.destroySoon = () => {
    socket.end();
    socket.pause();
    // Node's HTTP server resumes the socket to throw the rest of the body away: it stays paused.
    socket.on('resume', () => socket.pause());
    const cut = timers.after(LINGER_MS, () => socket.destroy(), { background: true });
    socket.once('close', () => cut.cancel());
  };
}
