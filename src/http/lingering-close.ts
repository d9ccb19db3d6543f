import type { Socket } from 'node:net';

/** How long a connection whose body was refused unread may still send before it is cut. */
const LINGER_MS = 2_000;

/**
 * Makes the close that follows an answer with `connection: close` a lingering one, for a request whose
 * body was refused unread. Closing a socket that still holds unread bytes makes the kernel send a reset,
 * and a reset can discard the answer before the client read it: 1 of 400 refused sign-ins got no 413
 * under load. So, as nginx's lingering close does, the answer is sent, the write side closed, and what the
 * client still sends is read and thrown away (no memory held) for at most `LINGER_MS`; then it is cut.
 * Node's HTTP server calls `destroySoon()` once such an answer is finished; this socket's does the above.
 */
export function lingerAfterAnswer(socket: Socket): void {
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    const cut = setTimeout(() => socket.destroy(), LINGER_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  };
}
