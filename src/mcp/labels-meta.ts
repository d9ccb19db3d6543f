/**
 * Where a Wardrik server (or any other) puts a result's labels: `_meta['wardrik/labels']`. Its own module,
 * as the server writes it and the hub reads it, and the server should not load the hub's MCP clients.
 */
export const LABELS_META = 'wardrik/labels';
