/**
 * The most characters of one warning the MCP server reports. What a client sent can be in one (the SDK's
 * refusal of a request quotes its header and body values), and a 1 MiB request must not become a 1 MB log line.
 */
export const MAX_WARNING_CHARS = 2_000;

/** `warn`, with each message cut to `MAX_WARNING_CHARS` and a note of how much was cut. */
export function clippedWarnings(warn: (message: string) => void): (message: string) => void {
  return (message) =>
    warn(
      message.length <= MAX_WARNING_CHARS
        ? message
        : `${message.slice(0, MAX_WARNING_CHARS)}… (${message.length - MAX_WARNING_CHARS} more characters cut)`,
    );
}
