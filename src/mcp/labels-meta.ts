/**
 * Where a Wardrik server (or any other) puts a result's labels: `_meta['wardrik/labels']`. Its own module,
 * as the server writes it and the hub reads it, and the server should not load the hub's MCP clients.
 */
export const LABELS_META = 'wardrik/labels';

/**
 * The draft MCP extension for trust annotations (the Tool Annotations Interest Group's
 * `io.modelcontextprotocol/trust-annotations`, from SEP-1913): under this key in a result's `_meta` (or a
 * content block's), `sensitive: true` marks data that is not for everyone and `untrusted: true` data from
 * outside. An absent key or `false` makes no claim; a block's claim only adds to the result's.
 */
export const TRUST_ANNOTATIONS_META = 'io.modelcontextprotocol/trust-annotations';
